package offline

import "github.com/clarify-bot/clarify/dialog/offline/words"

// stopWords carry no meaning for linking.
var stopWords = words.Set("stop")
