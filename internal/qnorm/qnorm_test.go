package qnorm

import "testing"

func TestQuestion(t *testing.T) {
	tests := []struct {
		name, a, b string
		same       bool
	}{
		{"case and punctuation", "How many orders were placed in 2025?", "how many orders placed in 2025", true},
		{"plural", "revenue by category", "Revenue by categories", true},
		{"articles", "what is the total revenue", "total revenue", true},
		{"different year", "orders in 2024", "orders in 2025", false},
		{"negation kept", "customers without orders", "customers with orders", false},
		{"status not singularised", "orders by status", "orders by statu", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Question(tt.a) == Question(tt.b)
			if got != tt.same {
				t.Errorf("Question(%q) = %q, Question(%q) = %q; same = %v, want %v", tt.a, Question(tt.a), tt.b, Question(tt.b), got, tt.same)
			}
		})
	}
}
