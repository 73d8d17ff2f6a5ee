package ontology

import (
	"strings"
	"testing"

	"github.com/clarify-bot/clarify/internal/kv/kvtest"
)

// TestOnMySQL runs the store's suite again on a MySQL-protocol server
// (MYSQL_TEST_DSN), each test on a fresh database: MustOpen sees that the
// test runs under this one and opens the store there.
func TestOnMySQL(t *testing.T) {
	kvtest.SkipWithoutServer(t)
	for _, tc := range []struct {
		name string
		run  func(*testing.T)
	}{
		{"Learn", TestLearn},
		{"LearnResetsUsesOnNewTarget", TestLearnResetsUsesOnNewTarget},
		{"LearnInvalid", TestLearnInvalid},
		{"ConfirmRejectActive", TestConfirmRejectActive},
		{"Applicable", TestApplicable},
		{"GetDelete", TestGetDelete},
		{"Forget", TestForget},
		{"Promote", TestPromote},
		{"Edit", TestEdit},
		{"Audit", TestAudit},
		{"ExportImportRoundTrip", TestExportImportRoundTrip},
		{"ImportMalformed", TestImportMalformed},
		{"ConcurrentLearn", TestConcurrentLearn},
		{"ImportMatchesByIDFirst", TestImportMatchesByIDFirst},
		{"ImportOfALastFormatExport", TestImportOfALastFormatExport},
		{"ReplaceSourceReplacesTheWholeLoad", TestReplaceSourceReplacesTheWholeLoad},
		{"ReplaceSourceRefuses", TestReplaceSourceRefuses},
		{"QuestionRecordsAreAuditedAndPruned", TestQuestionRecordsAreAuditedAndPruned},
		{"LearnSameChoiceKeepsUses", TestLearnSameChoiceKeepsUses},
		{"RejectOwnership", TestRejectOwnership},
		{"ConfirmedAnswers", TestConfirmedAnswers},
		{"MigrationCleansJunk", TestMigrationCleansJunk},
		{"DefinitionsPerSubject", TestDefinitionsPerSubject},
	} {
		t.Run(tc.name, tc.run)
	}
}

func onServer(tb testing.TB) bool { return strings.HasPrefix(tb.Name(), "TestOnMySQL/") }
