package llmengine

import (
	"container/list"
	"strings"
	"sync"

	"github.com/clarify-bot/clarify/dialog"
)

// convMemory is what the engine remembers of one question between rounds:
// a Request carries the feedback but not the SQL it revises, nor the
// questions the engine itself asked.
type convMemory struct {
	// readings are the best candidates of the last round.
	readings []reading
	// applied is how many feedback items those readings reflect.
	applied int
	// asked are the engine's own questions so far.
	asked []askedQ
	// settled: the review found no open ambiguity (early stop).
	settled   bool
	sraRounds int
}

type reading struct {
	sql   string
	prior float64
}

type askedQ struct {
	prompt, phrase string
}

// memory is a bounded map of conversations, least recently used first out.
// It lives in the engine (one per warehouse), not in a global; after a
// restart the engine falls back to generating from the question and all
// its feedback.
type memory struct {
	mu    sync.Mutex
	max   int
	items map[string]*list.Element
	lru   *list.List
}

type memItem struct {
	key string
	m   convMemory
}

func newMemory(max int) *memory {
	return &memory{max: max, items: map[string]*list.Element{}, lru: list.New()}
}

// memKey identifies a question of a person in a place.
func memKey(req dialog.Request) string {
	w := req.Who
	return strings.Join([]string{w.Platform, w.Workspace, w.Channel, w.User, req.Warehouse, req.Question}, "\x00")
}

// get returns a copy of the memory of key, or nil.
func (m *memory) get(key string) *convMemory {
	m.mu.Lock()
	defer m.mu.Unlock()
	el, ok := m.items[key]
	if !ok {
		return nil
	}
	m.lru.MoveToFront(el)
	c := el.Value.(*memItem).m
	c.readings = append([]reading(nil), c.readings...)
	c.asked = append([]askedQ(nil), c.asked...)
	return &c
}

// update changes (or creates) the memory of key.
func (m *memory) update(key string, fn func(*convMemory)) {
	m.mu.Lock()
	defer m.mu.Unlock()
	el, ok := m.items[key]
	if !ok {
		el = m.lru.PushFront(&memItem{key: key})
		m.items[key] = el
		for m.lru.Len() > m.max {
			old := m.lru.Back()
			m.lru.Remove(old)
			delete(m.items, old.Value.(*memItem).key)
		}
	} else {
		m.lru.MoveToFront(el)
	}
	fn(&el.Value.(*memItem).m)
}
