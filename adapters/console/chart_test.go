package console

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/internal/dialogtest"
)

// TestChartSavedWithSparkline: a monthly trend from the real dialog over
// the demo warehouse prints a sparkline and the path of a saved PNG; a
// single figure prints neither.
func TestChartSavedWithSparkline(t *testing.T) {
	env := dialogtest.New(t, 1500, dialog.Config{})
	dir := filepath.Join(t.TempDir(), "charts")
	out := MustRun(t, env.Manager, "monthly number of orders in 2024\n1\nhow many customers do we have?\n", Options{User: "ana", ChartDir: dir})

	trend := regexp.MustCompile(`(?m)^Trend: [▁▂▃▄▅▆▇█ ]{12}  Jan \d+ → Dec \d+$`)
	if !trend.MatchString(out) {
		t.Fatalf("no sparkline of twelve months in:\n%s", out)
	}
	m := regexp.MustCompile(`(?m)^Chart: (.+\.png)$`).FindAllStringSubmatch(out, -1)
	if len(m) != 1 {
		t.Fatalf("want one chart path (the count of customers has none), got %d in:\n%s", len(m), out)
	}
	path := m[0][1]
	if !strings.HasPrefix(path, dir) {
		t.Errorf("chart saved in %s, want under %s", path, dir)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")) || len(data) < 5000 {
		t.Fatalf("%s is not a chart (%d bytes)", path, len(data))
	}
}

// TestNoChartDirSavesNothing: without a directory the trend still gets its
// sparkline, and nothing is written.
func TestNoChartDirSavesNothing(t *testing.T) {
	env := dialogtest.New(t, 1500, dialog.Config{})
	out := MustRun(t, env.Manager, "monthly number of orders in 2024\n1\n", Options{User: "ana"})
	if !strings.Contains(out, "Trend: ") || strings.Contains(out, "Chart: ") {
		t.Fatalf("want a sparkline and no saved chart:\n%s", out)
	}
}
