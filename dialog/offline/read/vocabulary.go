package read

import (
	"regexp"

	"github.com/clarify-bot/clarify/dialog/offline/words"
)

// AggWords name an aggregate function before a measure.
var AggWords = words.Map("aggregate")

// CommonWords ask how often a value occurs: "most common status".
var CommonWords = words.Set("common")

// percentSign is a "%" that stands for a word ("what % of orders").
var percentSign = regexp.MustCompile(`(^|[^0-9])%\s*of\b`)
