package browsers

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// sysProcAttr has no process options to set on Windows: the browser is
// a windowed program that gets no console's Ctrl-C, and the job object
// of its guard ties it to the provider.
func sysProcAttr() *syscall.SysProcAttr { return nil }

// A guard stops a launched browser and every process it started: a job
// object that kills its processes when its last handle closes. The
// provider holds that handle, so when the provider dies, however it
// dies, Windows closes it and the browser dies too; the processes the
// browser starts are in the job as well.
type guard struct {
	p *os.Process

	mu  sync.Mutex     // guards job: kill (Close) and release (the wait) may meet
	job windows.Handle // 0 once released, or when there is none
}

// newGuard puts a browser just started into a job object of its own
// that kills on close. On error the guard kills the process alone.
func newGuard(p *os.Process) (*guard, error) {
	g := &guard{p: p}
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return g, fmt.Errorf("job object: %w", err)
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{
		BasicLimitInformation: windows.JOBOBJECT_BASIC_LIMIT_INFORMATION{LimitFlags: windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE},
	}
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		windows.CloseHandle(job)
		return g, fmt.Errorf("job object: %w", err)
	}
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, uint32(p.Pid))
	if err != nil {
		windows.CloseHandle(job)
		return g, fmt.Errorf("job object: open pid %d: %w", p.Pid, err)
	}
	defer windows.CloseHandle(h)
	if err := windows.AssignProcessToJobObject(job, h); err != nil {
		windows.CloseHandle(job)
		return g, fmt.Errorf("job object: assign pid %d: %w", p.Pid, err)
	}
	g.job = job
	return g, nil
}

// kill ends every process of the job, then the browser process itself.
func (g *guard) kill() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	var err error
	if g.job != 0 {
		err = windows.TerminateJobObject(g.job, 1)
	}
	if kerr := g.p.Kill(); kerr != nil && !errors.Is(kerr, os.ErrProcessDone) {
		err = errors.Join(err, kerr)
	}
	return err
}

// release closes the job once the browser has exited, which kills what
// it left running.
func (g *guard) release() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.job != 0 {
		windows.CloseHandle(g.job)
		g.job = 0
	}
}
