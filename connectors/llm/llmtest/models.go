package llmtest

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"

	openai "github.com/sashabaranov/go-openai"
)

// SetModels sets the models GET /v1/models lists (by default only Model,
// when set).
func (s *Server) SetModels(ids ...string) {
	s.mu.Lock()
	s.models = append([]string{}, ids...)
	s.mu.Unlock()
}

// serveModels answers GET …/models and GET …/models/{id} the way OpenAI
// does; it reports false for any other request.
func (s *Server) serveModels(w http.ResponseWriter, r *http.Request) bool {
	if r.Method != http.MethodGet {
		return false
	}
	_, rest, ok := strings.Cut(r.URL.Path, "/models")
	if !ok || (rest != "" && !strings.HasPrefix(rest, "/")) {
		return false
	}
	s.mu.Lock()
	ids := s.models
	if ids == nil && s.Model != "" {
		ids = []string{s.Model}
	}
	s.calls = append(s.calls, Call{Path: r.URL.Path, Query: r.URL.RawQuery, Header: r.Header.Clone()})
	s.mu.Unlock()
	model := func(id string) openai.Model {
		return openai.Model{ID: id, Object: "model", CreatedAt: 1, OwnedBy: "llmtest"}
	}
	w.Header().Set("Content-Type", "application/json")
	if id := strings.TrimPrefix(rest, "/"); id != "" {
		if !slices.Contains(ids, id) {
			w.WriteHeader(http.StatusNotFound)
			json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{
				"message": "The model '" + id + "' does not exist", "type": "invalid_request_error", "param": "model", "code": "model_not_found"}})
			return true
		}
		json.NewEncoder(w).Encode(model(id))
		return true
	}
	list := openai.ModelsList{}
	for _, id := range ids {
		list.Models = append(list.Models, model(id))
	}
	json.NewEncoder(w).Encode(struct {
		Object string         `json:"object"`
		Data   []openai.Model `json:"data"`
	}{"list", list.Models})
	return true
}
