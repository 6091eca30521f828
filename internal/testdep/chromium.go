package testdep

import (
	"context"
	"os"
	"os/exec"
	"testing"

	"github.com/chromedp/chromedp"
)

// ChromiumPath returns the path of the Chromium the tests drive — $CHROMIUM,
// else /usr/bin/chromium, else chromium or chromium-browser on PATH — or
// ends t ([SkipOrFail]) where there is none. what says what the test checks
// in it.
func ChromiumPath(t testing.TB, what string) string {
	t.Helper()
	skipIfShort(t, what)
	for _, name := range []string{os.Getenv("CHROMIUM"), "/usr/bin/chromium", "chromium", "chromium-browser"} {
		if name == "" {
			continue
		}
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	SkipOrFail(t, "no Chromium ($CHROMIUM, /usr/bin/chromium or chromium on PATH)", what+" runs in a real browser; install Chromium (.ci/run does)")
	return ""
}

// Chromium starts a headless Chromium for t — the one way the module's
// tests drive a browser, over the DevTools protocol (chromedp) — and
// returns its browser context: chromedp.NewContext(it) opens a tab,
// chromedp.Run(it, …) drives the first one. extra adds or overrides
// flags. The browser stops when ctx ends or the test ends. It ends t
// ([SkipOrFail]) where there is no Chromium.
func Chromium(t testing.TB, ctx context.Context, what string, extra ...chromedp.ExecAllocatorOption) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:0:0],
		chromedp.ExecPath(ChromiumPath(t, what)),
		chromedp.Flag("headless", true),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.NoFirstRun,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
	)
	actx, acancel := chromedp.NewExecAllocator(ctx, append(opts, extra...)...)
	t.Cleanup(acancel)
	bctx, bcancel := chromedp.NewContext(actx)
	t.Cleanup(bcancel)
	if err := chromedp.Do(bctx); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	return bctx
}
