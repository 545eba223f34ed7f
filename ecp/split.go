package ecp

import (
	"errors"
	"strings"
)

// maxCommandLine bounds the command line SplitCommand accepts.
const maxCommandLine = 64 << 10

// SplitCommand splits a command line into words the way a POSIX shell does
// for a simple command, without running a shell: words are separated by
// unquoted blanks; single quotes keep everything literally; double quotes
// keep everything but \" \\ \$ \` (and a backslash-newline, which is
// removed); an unquoted backslash escapes the next character. There is no
// expansion of any kind ($VAR, globs, ~) and no operators (|, ;, &, <, >
// are ordinary characters). An empty line, an unterminated quote or a
// trailing backslash is an error.
func SplitCommand(line string) ([]string, error) {
	if len(line) > maxCommandLine {
		return nil, errors.New("ecp: command line longer than 64 KiB")
	}
	s := splitter{}
	for i := 0; i < len(line); i++ {
		if err := s.next(line, &i); err != nil {
			return nil, err
		}
	}
	if s.quote != 0 {
		return nil, errors.New("ecp: command line has an unterminated " + string(s.quote) + " quote")
	}
	s.flush()
	if len(s.words) == 0 {
		return nil, errors.New("ecp: empty command line: give the agent's command after the ecp+stdio: prefix")
	}
	return s.words, nil
}

// splitter is the state of SplitCommand.
type splitter struct {
	words  []string
	word   strings.Builder
	inWord bool
	quote  byte // 0, '\'' or '"'
}

func (s *splitter) flush() {
	if s.inWord {
		s.words = append(s.words, s.word.String())
		s.word.Reset()
		s.inWord = false
	}
}

// next consumes line[*i] (and, for escapes, the character after it).
func (s *splitter) next(line string, i *int) error {
	c := line[*i]
	switch s.quote {
	case '\'':
		if c == '\'' {
			s.quote = 0
		} else {
			s.word.WriteByte(c)
		}
		return nil
	case '"':
		return s.inDouble(line, i)
	}
	switch c {
	case ' ', '\t', '\n':
		s.flush()
	case '\'', '"':
		s.quote, s.inWord = c, true
	case '\\':
		if *i+1 >= len(line) {
			return errors.New("ecp: command line ends with a backslash")
		}
		*i++
		if line[*i] != '\n' {
			s.word.WriteByte(line[*i])
			s.inWord = true
		}
	default:
		s.word.WriteByte(c)
		s.inWord = true
	}
	return nil
}

// inDouble consumes one character inside double quotes.
func (s *splitter) inDouble(line string, i *int) error {
	c := line[*i]
	switch {
	case c == '"':
		s.quote = 0
	case c == '\\' && *i+1 < len(line) && strings.IndexByte("\"\\$`\n", line[*i+1]) >= 0:
		*i++
		if line[*i] != '\n' {
			s.word.WriteByte(line[*i])
		}
	default:
		s.word.WriteByte(c)
	}
	return nil
}
