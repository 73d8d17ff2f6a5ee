package ontology

import (
	"testing"

	"github.com/clarify-bot/clarify/internal/kv/kvtest"
)

// TestOnMySQL runs the store's suite again on a MySQL-protocol server
// (MYSQL_TEST_DSN), each test on a fresh database: MustOpen sees that the
// test runs under this one and opens the store there.
func TestOnMySQL(t *testing.T) {
	kvtest.RunOnServer(t, []kvtest.Test{
		{Name: "Learn", Run: TestLearn},
		{Name: "LearnResetsUsesOnNewTarget", Run: TestLearnResetsUsesOnNewTarget},
		{Name: "LearnInvalid", Run: TestLearnInvalid},
		{Name: "ConfirmRejectActive", Run: TestConfirmRejectActive},
		{Name: "Applicable", Run: TestApplicable},
		{Name: "GetDelete", Run: TestGetDelete},
		{Name: "Forget", Run: TestForget},
		{Name: "Promote", Run: TestPromote},
		{Name: "Edit", Run: TestEdit},
		{Name: "Audit", Run: TestAudit},
		{Name: "ExportImportRoundTrip", Run: TestExportImportRoundTrip},
		{Name: "ImportMalformed", Run: TestImportMalformed},
		{Name: "ConcurrentLearn", Run: TestConcurrentLearn},
		{Name: "ImportMatchesByIDFirst", Run: TestImportMatchesByIDFirst},
		{Name: "ImportOfALastFormatExport", Run: TestImportOfALastFormatExport},
		{Name: "ReplaceSourceReplacesTheWholeLoad", Run: TestReplaceSourceReplacesTheWholeLoad},
		{Name: "ReplaceSourceRefuses", Run: TestReplaceSourceRefuses},
		{Name: "QuestionRecordsAreAuditedAndPruned", Run: TestQuestionRecordsAreAuditedAndPruned},
		{Name: "LearnSameChoiceKeepsUses", Run: TestLearnSameChoiceKeepsUses},
		{Name: "RejectOwnership", Run: TestRejectOwnership},
		{Name: "ConfirmedAnswers", Run: TestConfirmedAnswers},
		{Name: "MigrationCleansJunk", Run: TestMigrationCleansJunk},
		{Name: "DefinitionsPerSubject", Run: TestDefinitionsPerSubject},
	})
}
