package knowledge

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// Document is one knowledge-base document, as tau2's document files hold it.
type Document struct {
	ID      string `json:"id"`
	Title   string `json:"title"`
	Content string `json:"content"`
}

// Base is a loaded knowledge base and its indexes. It is immutable once
// built and safe for concurrent use: a process builds one and every
// simulation's tools share it.
type Base struct {
	docs    []Document
	byID    map[string]int
	byTitle map[string]int
	bm25    *bm25Index
	// denseIx are the documents' embeddings, per embedder, made on first
	// use by a dense configuration.
	denseIx denseIndexes

	// runes holds each document's content as code points for grep, built
	// on the first grep (configurations without grep never pay for it).
	runesOnce sync.Once
	runes     [][]rune
}

// Load reads every *.json document file of dir (tau2's
// banking_knowledge/documents), in file-name order, and indexes them.
func Load(dir string) (*Base, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("knowledge base: %w (want tau2's banking_knowledge/documents directory)", err)
	}
	var docs []Document
	for _, e := range entries { // os.ReadDir sorts by file name
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		doc, err := readDocument(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		docs = append(docs, doc)
	}
	return New(docs)
}

func readDocument(path string) (Document, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return Document{}, fmt.Errorf("knowledge base: %w", err)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return Document{}, fmt.Errorf("knowledge base: %s: %w", path, err)
	}
	for _, name := range []string{"id", "title", "content"} {
		if _, ok := fields[name]; !ok {
			return Document{}, fmt.Errorf("knowledge base: %s: no %q field (a document needs id, title and content strings)", path, name)
		}
	}
	var doc Document
	if err := json.Unmarshal(raw, &doc); err != nil {
		return Document{}, fmt.Errorf("knowledge base: %s: %w (id, title and content must be strings)", path, err)
	}
	return doc, nil
}

// New indexes documents in the order given. Like tau2's dict of documents,
// a later document with an id already seen replaces the earlier one in its
// place.
func New(docs []Document) (*Base, error) {
	b := &Base{byID: make(map[string]int, len(docs)), byTitle: make(map[string]int, len(docs))}
	for _, d := range docs {
		if i, dup := b.byID[d.ID]; dup {
			b.docs[i] = d
			continue
		}
		b.byID[d.ID] = len(b.docs)
		b.docs = append(b.docs, d)
	}
	if len(b.docs) == 0 {
		return nil, errors.New("knowledge base: no documents (want the *.json files of tau2's banking_knowledge/documents)")
	}
	for i, d := range b.docs { // a title shared by several documents names the last
		b.byTitle[d.Title] = i
	}
	b.bm25 = newBM25(b.docs)
	return b, nil
}

// Len returns the number of documents.
func (b *Base) Len() int { return len(b.docs) }

// Documents returns the documents in the base's order. The slice is
// shared: callers must not modify it.
func (b *Base) Documents() []Document { return b.docs }

// Document returns the document of an id.
func (b *Base) Document(id string) (Document, bool) {
	i, ok := b.byID[id]
	if !ok {
		return Document{}, false
	}
	return b.docs[i], true
}

// IDs returns the document ids in the base's order.
func (b *Base) IDs() []string {
	ids := make([]string, len(b.docs))
	for i, d := range b.docs {
		ids[i] = d.ID
	}
	return ids
}

// docRunes returns each document's content as code points, for grep.
func (b *Base) docRunes() [][]rune {
	b.runesOnce.Do(func() {
		b.runes = make([][]rune, len(b.docs))
		for i, d := range b.docs {
			b.runes[i] = []rune(d.Content)
		}
	})
	return b.runes
}
