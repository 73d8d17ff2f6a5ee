// Package evalguard holds a test that keeps the public evaluation questions
// out of the product's code: an example in a comment or a phrase a rule
// matches must come from a schema of our own, or what the engine learns
// does not carry to other wordings and other warehouses.
package evalguard
