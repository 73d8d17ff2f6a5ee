// Package clarify holds the files of the repository root that the program
// ships with.
package clarify

import _ "embed"

// SlackManifest is manifest.yml, the Slack app manifest: bot doctor
// compares the scopes Slack granted with the ones it lists.
//
//go:embed manifest.yml
var SlackManifest []byte
