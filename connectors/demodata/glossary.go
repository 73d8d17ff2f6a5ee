package demodata

import _ "embed"

// Glossary is the demo warehouse's team glossary (glossary.yml; see
// connectors/glossary): net revenue as the team's revenue, active
// customers, open orders, two undeclared joins and two verified queries.
//
//go:embed glossary.yml
var Glossary []byte

// GlossaryFile is the name Glossary is reported under.
const GlossaryFile = "connectors/demodata/glossary.yml"
