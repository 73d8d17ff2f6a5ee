// Package layers holds the test that keeps imports pointing one way:
// adapters → dialog → connectors and ontology → internal, with bot (the
// program and its wiring) above them all (docs/ARCHITECTURE.md).
package layers
