package dev.knotless.node.runc;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A step's {@code runc exec} inside a small host process of its own, the shim (as containerd has
 * one per container), so the step outlives the agent that started it: the shim owns the step's
 * stdio and its end, and a restarted agent finds both on disk. The shim is one Perl process that
 *
 * <ol>
 *   <li>leaves the agent's session and process group ({@code setsid}), and ignores TERM and HUP, so
 *       neither the agent's death nor a signal to its group or terminal reaches it;</li>
 *   <li>records itself in {@code DIR/shim} as {@code PID STARTTIME} (the start time in clock ticks,
 *       field 22 of {@code /proc/PID/stat}), so a restarted agent tells it from a later process
 *       that reuses the pid;</li>
 *   <li>runs {@code runc exec} with every signal at its default ({@link Runc#RESET_SIGNALS}),
 *       its own stdin (the step's payload, from the agent) and a pipe each for stdout and stderr,
 *       so the step's streams stay pipes;</li>
 *   <li>copies both pipes into {@code DIR/stdout} and {@code DIR/stderr} until both end, then
 *       writes {@code exit CODE} (runc's exit code: the step's, 128 + N for a signal) to
 *       {@code DIR/status} atomically.</li>
 * </ol>
 *
 * Nothing secret passes through it but the payload on stdin: argv holds paths and the allocation
 * id, and {@code DIR/process.json} holds the receiver and the image's environment. One Perl start
 * and one fork: the POSIX module alone would add 16 ms a step, so {@code setsid} is a raw system
 * call as the signal reset is.
 */
public final class ExecShim {

    static final String SCRIPT = """
            my ($sigaction, $setsid, $dir, @runc) = @ARGV;
            $SIG{TERM} = $SIG{HUP} = 'IGNORE';
            syscall($setsid + 0);
            sub record { my ($file, $text) = @_; open(my $f, '>', "$file.tmp") or die "shim: $file.tmp: $!\\n";
                print $f $text; close $f or die "shim: $file.tmp: $!\\n"; rename("$file.tmp", $file) or die "shim: $file: $!\\n"; }
            open(my $self, '<', "/proc/$$/stat") or die "shim: /proc/$$/stat: $!\\n";
            my $stat = <$self>; close $self;
            record("$dir/shim", "$$ " . (split ' ', substr($stat, rindex($stat, ')') + 2))[19] . "\\n");
            pipe(my $or, my $ow) && pipe(my $er, my $ew) or die "shim: pipe: $!\\n";
            my $pid = fork;
            defined $pid or die "shim: fork: $!\\n";
            if (!$pid) {
                open(STDOUT, '>&', $ow) && open(STDERR, '>&', $ew) or die "shim: $!\\n";
                my $d = pack('Q4', 0, 0, 0, 0); syscall($sigaction + 0, $_, $d, 0, 8) for 1 .. 64;
                exec { $runc[0] } @runc or die "cannot run $runc[0]: $!\\n";
            }
            close $ow; close $ew; open(STDIN, '<', '/dev/null');
            open(my $out, '>>', "$dir/stdout") && open(my $err, '>>', "$dir/stderr") or die "shim: $!\\n";
            my %to = (fileno($or) => [$or, $out], fileno($er) => [$er, $err]);
            while (%to) {
                my $ready = ''; vec($ready, $_, 1) = 1 for keys %to;
                select($ready, undef, undef, undef);
                for my $fd (keys %to) {
                    next unless vec($ready, $fd, 1);
                    my ($from, $file) = @{$to{$fd}};
                    my $n = sysread($from, my $buffer, 65536);
                    if (!$n) { delete $to{$fd}; next; }
                    for (my $at = 0; $at < $n;) { $at += syswrite($file, $buffer, $n - $at, $at) // die "shim: write: $!\\n"; }
                }
            }
            waitpid($pid, 0);
            record("$dir/status", "exit " . ($? & 127 ? 128 + ($? & 127) : $? >> 8) . "\\n");
            """;

    /** The files of one step's shim, in the step's directory. */
    public record StepFiles(Path dir) {
        public Path record() {
            return dir.resolve("shim");
        }

        public Path status() {
            return dir.resolve("status");
        }

        public Path process() {
            return dir.resolve("process.json");
        }

        public Path runcLog() {
            return dir.resolve("runc.log");
        }

        /** What the shim itself said (Perl's own errors), never the step's output. */
        public Path errors() {
            return dir.resolve("shim.err");
        }
    }

    private final Runc runc;
    private final HostSyscalls syscalls;

    ExecShim(Runc runc, HostSyscalls syscalls) {
        this.runc = runc;
        this.syscalls = syscalls;
    }

    /**
     * Starts a shim running {@code processJson} in container {@code id}, its files in {@code
     * files.dir()} (which holds empty {@code stdout} and {@code stderr}). The caller writes the
     * step's stdin to the returned process and closes it; the shim has no other stream to the agent.
     */
    public Process start(String id, StepFiles files, byte[] processJson) throws RuncException, IOException {
        Files.write(files.process(), processJson);
        List<String> argv = new ArrayList<>(List.of("perl", "-e", SCRIPT, syscalls.rtSigaction(), syscalls.setsid(),
                files.dir().toAbsolutePath().toString()));
        argv.addAll(runc.execArgv(id, files.process().toAbsolutePath(), files.runcLog().toAbsolutePath()));
        try {
            return new ProcessBuilder(argv).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(files.errors().toFile())).start();
        } catch (IOException e) {
            throw new RuncException("cannot start the step's shim (perl): " + e.getMessage());
        }
    }
}
