package interop

import (
	"bytes"
	"crypto/rand"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// miniSlurm is a one-node Slurm cluster on localhost: Debian's munged,
// slurmctld and slurmd, each with its state, sockets, logs and a
// generated slurm.conf in one temporary directory, so it touches nothing
// of the machine's own Slurm or munge set-up.
type miniSlurm struct {
	dir   string
	conf  string
	procs []*exec.Cmd
}

// slurmDaemons are the programs a mini cluster needs, from Debian's
// slurm-wlm and munge packages.
var slurmDaemons = []string{"munged", "munge", "slurmctld", "slurmd", "sbatch", "squeue", "scancel", "sinfo"}

// startSlurm starts a mini cluster for the test and stops it when the test
// ends. Where it cannot be started it skips the test, saying why, except
// under CI (CI=true), where .ci/run installs the packages and a cluster
// that will not start is a failure.
func startSlurm(t *testing.T) *miniSlurm {
	t.Helper()
	give := func(format string, args ...any) {
		t.Helper()
		msg := fmt.Sprintf(format, args...)
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg + " (the test runs where Slurm can be started; CI requires it)")
	}
	for _, p := range slurmDaemons {
		if _, err := exec.LookPath(p); err != nil {
			give("no %s: install Debian's slurm-wlm and munge (apt-get install slurm-wlm munge)", p)
		}
	}
	me, err := user.Current()
	if err != nil {
		give("who runs the test: %v", err)
	}
	host, err := os.Hostname()
	if err != nil {
		give("hostname: %v", err)
	}
	host, _, _ = strings.Cut(host, ".")

	// munged refuses a socket directory that others may write to, and a
	// key that others may read.
	dir, err := os.MkdirTemp("", "minislurm")
	if err != nil {
		t.Fatal(err)
	}
	s := &miniSlurm{dir: dir, conf: filepath.Join(dir, "slurm.conf")}
	t.Cleanup(func() { s.stop(t) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"state", "spool", "log"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	key := make([]byte, 1024)
	rand.Read(key)
	if err := os.WriteFile(s.path("munge.key"), key, 0o400); err != nil {
		t.Fatal(err)
	}
	s.daemon(t, "munged", "-F", "--key-file="+s.path("munge.key"), "--socket="+s.path("munge.sock"),
		"--pid-file="+s.path("munged.pid"), "--log-file="+s.path("log/munged.log"), "--seed-file="+s.path("munge.seed"))
	if !waitFor(10*time.Second, func() bool {
		return exec.Command("munge", "-S", s.path("munge.sock"), "-n").Run() == nil
	}) {
		give("munged did not start:\n%s", s.logs())
	}

	ports := freePorts(t, 2)
	conf := fmt.Sprintf(`# A one-node cluster for gpureplay's integration test.
ClusterName=gpureplaytest
SlurmctldHost=%[1]s(127.0.0.1)
SlurmctldPort=%[2]d
SlurmdPort=%[3]d
AuthType=auth/munge
AuthInfo=socket=%[4]s
CredType=cred/munge
SlurmUser=%[5]s
SlurmdUser=%[5]s
StateSaveLocation=%[6]s/state
SlurmdSpoolDir=%[6]s/spool
SlurmctldPidFile=%[6]s/slurmctld.pid
SlurmdPidFile=%[6]s/slurmd.pid
SlurmctldLogFile=%[6]s/log/slurmctld.log
SlurmdLogFile=%[6]s/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU_Memory
ReturnToService=2
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
JobAcctGatherType=jobacct_gather/none
MpiDefault=none
SchedulerType=sched/backfill
NodeName=%[1]s NodeAddr=127.0.0.1 CPUs=%[7]d RealMemory=%[8]d State=UNKNOWN
PartitionName=debug Nodes=%[1]s Default=YES MaxTime=INFINITE State=UP
`, host, ports[0], ports[1], s.path("munge.sock"), me.Username, dir, runtime.NumCPU(), nodeMemory())
	if err := os.WriteFile(s.conf, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	s.daemon(t, "slurmctld", "-D", "-i", "-f", s.conf)
	s.daemon(t, "slurmd", "-D", "-f", s.conf)
	if !waitFor(60*time.Second, func() bool {
		out, err := s.cmd("sinfo", "-h", "-o", "%t").Output()
		return err == nil && strings.TrimSpace(string(out)) == "idle"
	}) {
		give("the mini cluster's node did not come up idle:\n%s", s.logs())
	}
	return s
}

func (s *miniSlurm) path(name string) string { return filepath.Join(s.dir, name) }

// cmd prepares a Slurm client command against the mini cluster.
func (s *miniSlurm) cmd(name string, args ...string) *exec.Cmd {
	c := exec.Command(name, args...)
	c.Env = append(os.Environ(), "SLURM_CONF="+s.conf)
	return c
}

// run runs a Slurm client command and returns its standard output.
func (s *miniSlurm) run(t *testing.T, name string, args ...string) string {
	t.Helper()
	c := s.cmd(name, args...)
	var stderr bytes.Buffer
	c.Stderr = &stderr
	out, err := c.Output()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s\n%s", name, strings.Join(args, " "), err, stderr.String(), s.logs())
	}
	return strings.TrimSpace(string(out))
}

func (s *miniSlurm) daemon(t *testing.T, name string, args ...string) {
	t.Helper()
	c := s.cmd(name, args...)
	f, err := os.Create(s.path("log/" + name + ".out"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	c.Stdout, c.Stderr = f, f
	if err := c.Start(); err != nil {
		t.Fatalf("starting %s: %v", name, err)
	}
	s.procs = append(s.procs, c)
}

// stop ends the daemons, newest first (slurmd before slurmctld before
// munged), and removes the cluster's directory.
func (s *miniSlurm) stop(t *testing.T) {
	for i := len(s.procs) - 1; i >= 0; i-- {
		p := s.procs[i]
		p.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { p.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			p.Process.Kill()
			<-done
		}
	}
	if t.Failed() {
		t.Logf("mini cluster logs:\n%s", s.logs())
	}
	os.RemoveAll(s.dir)
}

// logs returns the tails of the daemons' logs, for a failure message.
func (s *miniSlurm) logs() string {
	var b strings.Builder
	files, _ := filepath.Glob(s.path("log/*"))
	for _, f := range files {
		data, _ := os.ReadFile(f)
		lines := strings.Split(strings.TrimSpace(string(data)), "\n")
		if len(lines) > 15 {
			lines = lines[len(lines)-15:]
		}
		fmt.Fprintf(&b, "== %s\n%s\n", filepath.Base(f), strings.Join(lines, "\n"))
	}
	return b.String()
}

// nodeMemory is the node's RealMemory in MiB: 80% of the machine's, as
// slurmd drains a node that reports less than its configuration says.
func nodeMemory() int {
	data, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 1024
	}
	for _, line := range strings.Split(string(data), "\n") {
		var kb int
		if _, err := fmt.Sscanf(line, "MemTotal: %d kB", &kb); err == nil {
			return kb / 1024 * 8 / 10
		}
	}
	return 1024
}

// freePorts returns n TCP ports free on localhost a moment ago.
func freePorts(t *testing.T, n int) []int {
	t.Helper()
	var ports []int
	var ls []net.Listener
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	for _, l := range ls {
		l.Close()
	}
	return ports
}

// waitFor polls cond every 50 ms until it holds or the timeout passes.
func waitFor(timeout time.Duration, cond func() bool) bool {
	for end := time.Now().Add(timeout); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if cond() {
			return true
		}
	}
	return false
}
