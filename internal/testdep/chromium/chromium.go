// Package chromium starts the headless Chromium that the module's browser
// tests drive over the DevTools protocol (chromedp): one per test
// ([Start]) or one a package's tests share ([Shared]). It is apart from
// testdep so that only the tests that drive a browser compile and link
// chromedp.
package chromium

import (
	"context"
	"os"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/tfrs/a2a-progress/internal/testdep"
)

// Start starts a headless Chromium for t — the one way the module's
// tests drive a browser, over the DevTools protocol (chromedp) — and
// returns its browser context: chromedp.NewContext(it) opens a tab,
// chromedp.Run(it, …) drives the first one. extra adds or overrides
// flags. The browser stops when ctx ends or the test ends. It ends t
// ([testdep.SkipOrFail]) where there is no Chromium.
func Start(t testing.TB, ctx context.Context, what string, extra ...chromedp.ExecAllocatorOption) context.Context {
	t.Helper()
	actx, acancel := chromedp.NewExecAllocator(ctx, chromiumFlags(testdep.ChromiumPath(t, what), t.TempDir(), extra)...)
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

// Shared is one headless Chromium that the tests of a package share, each
// test in a browser context of its own (its own cookies, storage, cache
// and tabs: [Shared.Tab]). Starting a Chromium takes seconds — more than
// most page tests take after it — and a browser context a fraction of
// that. Extra adds or overrides flags, as for [Start]; set it before
// the first Tab. The zero Shared is ready to use; [Shared.Closing]
// stops it once the package's tests ran.
type Shared struct {
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
// ends t ([testdep.SkipOrFail]) where there is no Chromium.
func (b *Shared) Tab(t testing.TB, ctx context.Context, what string) context.Context {
	t.Helper()
	path := testdep.ChromiumPath(t, what)
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

func (b *Shared) start(path string) {
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
func (b *Shared) Closing(m testdep.Runner) testdep.Runner { return testdep.Then(m, b.stop) }

func (b *Shared) stop() {
	b.once.Do(func() {}) // no Tab may start it now
	if b.cancel != nil {
		b.cancel()
	}
	if b.dir != "" {
		_ = os.RemoveAll(b.dir)
	}
}
