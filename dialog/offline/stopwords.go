package offline

// stopWords carry no meaning for linking.
var stopWords = map[string]bool{
	"a": true, "an": true, "the": true, "of": true, "in": true, "on": true, "at": true, "for": true, "to": true, "from": true,
	"by": true, "with": true, "and": true, "or": true, "is": true, "are": true, "was": true, "were": true, "be": true, "been": true,
	"do": true, "does": true, "did": true, "what": true, "which": true, "who": true, "whom": true, "whose": true, "how": true,
	"many": true, "much": true, "me": true, "us": true, "we": true, "our": true, "i": true, "my": true, "you": true, "your": true,
	"show": true, "list": true, "give": true, "tell": true, "find": true, "get": true, "all": true, "each": true, "every": true,
	"per": true, "there": true, "that": true, "this": true, "these": true, "those": true, "it": true, "its": true, "have": true,
	"has": true, "had": true, "as": true, "than": true, "into": true, "through": true, "their": true, "they": true, "them": true,
	"please": true, "can": true, "could": true, "would": true, "should": true, "let": true, "see": true, "about": true,
	"any": true, "some": true, "also": true, "only": true, "just": true, "then": true, "so": true, "if": true, "up": true,
	"out": true, "where": true, "when": true, "why": true, "name": true, "names": true, "number": true, "total": true,
	"did'nt": true, "not": true, "no": true, "but": true, "now": true, "and's": true, "s": true, "whats": true, "what's": true,
	"one": true, "ones": true, "like": true, "same": true, "other": true, "else": true, "use": true, "using": true, "instead": true,
	"meant": true, "mean": true, "rather": true, "over": true, "under": true, "above": true, "below": true, "more": true, "less": true,
	"fewer": true, "most": true, "least": true, "top": true, "between": true, "after": true, "before": true, "since": true, "during": true,
	"year": true, "years": true, "month": true, "months": true, "day": true, "days": true, "quarter": true, "week": true,
	"calculate": true, "compute": true, "convert": true,
}
