package discord

import (
	"bytes"
	"image/png"
	"strings"
	"testing"

	"github.com/clarify-bot/clarify/adapters/discord/discordtest"
	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/internal/dialogtest"
)

// TestChartAttachment: a breakdown answer is posted in the question's
// thread with its table in the text and a PNG chart attached to the same
// message.
func TestChartAttachment(t *testing.T) {
	t.Parallel()
	env := dialogtest.New(t, demoOrders, dialog.Config{})
	fake := newFake(t, discordtest.Options{})
	h := start(t, fake, testConfig(t, fake), env.Manager)

	h.quiet()
	q := h.post(msgOpts{Channel: dataCh, Content: "how many customers per segment?", From: alicePerson, Mention: true})
	fake.Next(t, "thread", discordtest.Is("POST", "/api/v9/channels/"+dataCh+"/messages/"+q+"/threads"))
	call, ans := h.posted("answer", "POST", "/api/v9/channels/"+q+"/messages")
	mustContain(t, "answer", ans.Content, "Enterprise", "```")
	if len(call.Files) != 1 {
		t.Fatalf("attachments %+v, want one chart", call.Files)
	}
	f := call.Files[0]
	if f.ContentType != "image/png" || !strings.HasSuffix(f.Name, ".png") {
		t.Fatalf("attachment %s (%s), want a PNG", f.Name, f.ContentType)
	}
	img, err := png.Decode(bytes.NewReader(f.Data))
	if err != nil {
		t.Fatalf("attachment is not a PNG: %v", err)
	}
	if b := img.Bounds(); b.Dx() < 600 || b.Dy() < 300 || len(f.Data) < 5000 {
		t.Fatalf("chart of %v and %d bytes is too small to read", b, len(f.Data))
	}
}
