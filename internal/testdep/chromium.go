package testdep

import (
	"context"
	"os"
	"os/exec"
	"sync"
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
	actx, acancel := chromedp.NewExecAllocator(ctx, chromiumFlags(ChromiumPath(t, what), t.TempDir(), extra)...)
	t.Cleanup(acancel)
	bctx, bcancel := chromedp.NewContext(actx)
	t.Cleanup(bcancel)
	if err := chromedp.Do(bctx); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	return bctx
}

// chromiumFlags are the flags of a Chromium at path with its profile in
// dir, extra last (they add or override).
func chromiumFlags(path, dir string, extra []chromedp.ExecAllocatorOption) []chromedp.ExecAllocatorOption {
	opts := append(chromedp.DefaultExecAllocatorOptions[:0:0],
		chromedp.ExecPath(path),
		chromedp.Flag("headless", true),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.NoFirstRun,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(dir),
	)
	return append(opts, extra...)
}

// Browser is one headless Chromium that the tests of a package share, each
// test in a browser context of its own (its own cookies, storage, cache
// and tabs: [Browser.Tab]). Starting a Chromium takes seconds — more than
// most page tests take after it — and a browser context a fraction of
// that. Extra adds or overrides flags, as for [Chromium]; set it before
// the first Tab. The zero Browser is ready to use; [Browser.Closing]
// stops it once the package's tests ran.
type Browser struct {
	Extra []chromedp.ExecAllocatorOption

	once   sync.Once
	ctx    context.Context // the browser's, from its first Tab on
	cancel context.CancelFunc
	dir    string // its profile
	err    error  // why it did not start
}

// Tab returns a tab of the shared Chromium in a new browser context of
// its own, closed with that context when the test ends or ctx does:
// chromedp.Run(tab, …) drives it, chromedp.NewContext(tab) opens another
// tab in the same browser context. The first Tab starts the Chromium. It
// ends t ([SkipOrFail]) where there is no Chromium.
func (b *Browser) Tab(t testing.TB, ctx context.Context, what string) context.Context {
	t.Helper()
	path := ChromiumPath(t, what)
	b.once.Do(func() { b.start(path) })
	if b.err != nil {
		t.Fatalf("start chromium: %v", b.err)
	}
	tab, cancel := chromedp.NewContext(b.ctx, chromedp.WithNewBrowserContext())
	stop := context.AfterFunc(ctx, cancel)
	t.Cleanup(func() {
		stop()
		cancel()
	})
	if err := chromedp.Do(tab); err != nil {
		t.Fatalf("open a tab: %v", err)
	}
	return tab
}

func (b *Browser) start(path string) {
	b.dir, b.err = os.MkdirTemp("", "testdep-chromium-")
	if b.err != nil {
		return
	}
	actx, acancel := chromedp.NewExecAllocator(context.Background(), chromiumFlags(path, b.dir, b.Extra)...)
	bctx, bcancel := chromedp.NewContext(actx)
	b.ctx, b.cancel = bctx, func() {
		bcancel()
		acancel() // waits for the Chromium to exit
	}
	b.err = chromedp.Do(bctx)
}

// Closing returns m run, then the browser stopped and its profile
// removed, so that no Chromium outlives the tests (and goleak sees none
// of its goroutines):
//
//	goleak.VerifyTestMain(testdep.Reporting(browser.Closing(m)))
func (b *Browser) Closing(m Runner) Runner { return closing{m, b} }

type closing struct {
	m Runner
	b *Browser
}

func (c closing) Run() int {
	code := c.m.Run()
	c.b.once.Do(func() {}) // no Tab may start it now
	if c.b.cancel != nil {
		c.b.cancel()
	}
	if c.b.dir != "" {
		_ = os.RemoveAll(c.b.dir)
	}
	return code
}
