package metric

// matching is a maximum bipartite matching of left vertices (expected
// calls) to right vertices (actual calls) by augmenting paths (Kuhn's
// algorithm). Edges may be added between rounds of augmentation.
type matching struct {
	adj        [][]int
	matchLeft  []int
	matchRight []int
	seen       []int
	stamp      int
	matched    int
}

func newMatching(left, right int) *matching {
	m := &matching{adj: make([][]int, left), matchLeft: make([]int, left), matchRight: make([]int, right), seen: make([]int, left)}
	for i := range m.matchLeft {
		m.matchLeft[i] = -1
	}
	for j := range m.matchRight {
		m.matchRight[j] = -1
	}
	return m
}

func (m *matching) addEdge(left, right int) { m.adj[left] = append(m.adj[left], right) }

// augmentAll tries to match every unmatched left vertex and returns how
// many are matched.
func (m *matching) augmentAll() int {
	for i := range m.adj {
		if m.matchLeft[i] < 0 {
			m.stamp++
			if m.augment(i) {
				m.matched++
			}
		}
	}
	return m.matched
}

// augment looks for an augmenting path from a left vertex. Its depth is at
// most the number of left vertices.
func (m *matching) augment(left int) bool {
	if m.seen[left] == m.stamp {
		return false
	}
	m.seen[left] = m.stamp
	for _, right := range m.adj[left] {
		if prev := m.matchRight[right]; prev < 0 || m.augment(prev) {
			m.matchRight[right] = left
			m.matchLeft[left] = right
			return true
		}
	}
	return false
}

// firstUnmatched returns the first unmatched left vertex, or -1.
func (m *matching) firstUnmatched() int {
	for i, r := range m.matchLeft {
		if r < 0 {
			return i
		}
	}
	return -1
}
