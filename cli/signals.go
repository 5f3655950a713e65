package cli

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

// interruption is the cause of a context cancelled by a signal: the exit
// code (130 for SIGINT, 143 for SIGTERM) depends on which one it was,
// which signal.NotifyContext does not say.
type interruption struct{ sig syscall.Signal }

func (e *interruption) Error() string { return "interrupted by " + e.sig.String() }

// exitCode is the shell's convention for a process ended by the signal.
func (e *interruption) exitCode() int { return 128 + int(e.sig) }

// signalContext is signal.NotifyContext with the signal kept as the
// context's cause.
func signalContext(parent context.Context, sigs ...os.Signal) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(parent)
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, sigs...)
	go func() {
		select {
		case s := <-ch:
			sig, _ := s.(syscall.Signal)
			cancel(&interruption{sig: sig})
		case <-ctx.Done():
		}
	}()
	return ctx, func() {
		signal.Stop(ch)
		cancel(nil)
	}
}

// interruptedBy returns the signal that cancelled ctx, or nil.
func interruptedBy(ctx context.Context) *interruption {
	if ctx.Err() == nil {
		return nil
	}
	if in, ok := context.Cause(ctx).(*interruption); ok {
		return in
	}
	return nil
}
