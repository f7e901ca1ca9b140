package dev.knotless.testkit;

import static dev.knotless.testkit.ContractSupport.MiB;
import static dev.knotless.testkit.ContractSupport.listing;
import static dev.knotless.testkit.ContractSupport.sh;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.knotless.executor.ExecutorException;
import dev.knotless.executor.Failure;
import dev.knotless.executor.Session;
import dev.knotless.executor.StepOutcome;
import dev.knotless.executor.StopSignal;
import dev.knotless.executor.TarSink;
import dev.knotless.tar.ArchiveLimits;
import dev.knotless.tar.Bounded;
import dev.knotless.tar.TarExtractor;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Map;
import java.util.stream.Stream;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;

/**
 * What a hostile step can put in {@code /outputs} for the runner to take out, through the
 * executor's own download, and what the runner keeps: a chain of links that leads out of the
 * outputs although no link's text does, a 1 GiB sparse file, more files than an archive may hold,
 * world-writable modes, names that drive a terminal; and a sparse archive riding through as a
 * file (on Kubernetes and nodes the run's own {@code tar} writes the download, so a run can make
 * it emit one). Extraction is the runner's, with the outputs' limits; part of {@link ExecutorContract}.
 */
public interface HostileOutputContract {

    /** The outputs' limits of these scenarios (the runner's default, scaled down: 10,000 entries). */
    ArchiveLimits OUTPUTS = ArchiveLimits.ofBytesAndEntries(16 * MiB, 10_000);
    /** Links in the chain: more than any temp directory is deep, so its end is the host's {@code /}. */
    int CHAIN = 40;

    ContractRun contract();

    @Test
    default void aHostileStepsOutputsAreRefusedOrTamedAndNothingOutsideIsReadOrWritten() throws Exception {
        StringBuilder chain = new StringBuilder("mkdir -p /outputs/chain && cd /outputs/chain && ln -s . l0");
        for (int i = 1; i <= CHAIN; i++) {
            chain.append(" && ln -s l").append(i - 1).append("/.. l").append(i);
        }
        chain.append(" && ln -s l").append(CHAIN).append("/etc/passwd passwd && echo fine > fine.txt\n");
        Session s = contract().open();
        RecordingOutput out = new RecordingOutput();
        StepOutcome outcome = s.run(sh("hostile", "set -e\n" + chain
                + "mkdir -p /outputs/big && dd if=/dev/zero of=/outputs/big/sparse bs=1 count=0 seek=1073741824 2>/dev/null\n"
                + "mkdir -p /outputs/many && cd /outputs/many && seq 1 12000 | xargs touch\n"
                + "mkdir -p /outputs/modes/open && cd /outputs/modes && echo x > run && echo y > shared && echo z > setid\n"
                + "chmod 0777 run open && chmod 0666 shared && chmod 4777 setid\n"
                + "mkdir -p /outputs/names && cd /outputs/names && ln -s /etc \"$(printf 'red\\033[31m\\nfake line')\"\n"),
                out, StopSignal.none());
        assertThat(outcome).as("stderr: %s", out.stderr()).isEqualTo(new StepOutcome.Exited(0));
        Path parent = Files.createDirectories(contract().temp().resolve("hostile"));

        Path chainDir = Files.createDirectories(parent.resolve("chain"));
        assertRefused(() -> s.download("/outputs/chain", outputs(chainDir), StopSignal.none()),
                "refused archive entry '", "l1'", "outside the target");
        assertNoLinkLeadsOutside(chainDir);

        Path bigDir = Files.createDirectories(parent.resolve("big"));
        long started = System.nanoTime();
        assertRefused(() -> s.download("/outputs/big", outputs(bigDir), StopSignal.none()), "larger than its limit of 16 MiB");
        Duration refusedAfter = Duration.ofNanos(System.nanoTime() - started);
        System.out.printf("%s: the 1 GiB output refused after %d ms%n", contract().executor().name(), refusedAfter.toMillis());
        // only a hang-catcher: 2-31 s here, 77 s on a node under the suite's load (the refusal's
        // bound is the bytes written, below, not the time)
        assertThat(refusedAfter).isLessThan(Duration.ofMinutes(10));
        assertThat(bytesUnder(bigDir)).isLessThanOrEqualTo(16 * MiB);

        Path manyDir = Files.createDirectories(parent.resolve("many"));
        assertRefused(() -> s.download("/outputs/many", outputs(manyDir), StopSignal.none()),
                "archive has more than its limit of 10000 entries");
        try (Stream<Path> files = Files.list(manyDir)) {
            assertThat(files.count()).isLessThanOrEqualTo(10_000);
        }

        Path modesDir = Files.createDirectories(parent.resolve("modes"));
        s.download("/outputs/modes", outputs(modesDir), StopSignal.none());
        assertThat(perms(modesDir.resolve("run"))).isEqualTo("rwxr-xr-x");
        assertThat(perms(modesDir.resolve("open"))).isEqualTo("rwxr-xr-x");
        assertThat(perms(modesDir.resolve("shared"))).isEqualTo("rw-r--r--");
        assertThat(Files.getAttribute(modesDir.resolve("setid"), "unix:mode", LinkOption.NOFOLLOW_LINKS)).isEqualTo(0100755);

        Path namesDir = Files.createDirectories(parent.resolve("names"));
        assertThatThrownBy(() -> s.download("/outputs/names", outputs(namesDir), StopSignal.none()))
                .isInstanceOfSatisfying(ExecutorException.class, e -> {
                    assertThat(e.failure().kind()).isEqualTo(Failure.Kind.LIMIT);
                    assertThat(e.failure().reason()).contains("red\\x1b[31m\\x0afake line'").doesNotContain("\u001b", "\n");
                });

        assertThat(listing(parent)).containsExactly("big", "chain", "many", "modes", "names");
    }

    @Test
    default void aSparseArchiveFromTheRunIsRefusedBeforeItExpands() throws Exception {
        Path archive = CraftedTars.sparseGiB(Files.createDirectories(contract().temp().resolve("sparse")), "posix");

        Session s = contract().open();
        s.upload("/outputs", out -> ContractSupport.writeTar(out, Map.of("sparse.tar", Files.readAllBytes(archive))),
                StopSignal.none());
        Path target = Files.createDirectories(contract().temp().resolve("sparse-download"));
        assertRefused(() -> s.download("/outputs", ContractSupport.unwrapping("sparse.tar", TarExtractor.into(target, OUTPUTS)),
                StopSignal.none()), "is a sparse file");
        assertThat(bytesUnder(target)).isZero();
    }

    /** As the runner takes outputs: extracted within {@link #OUTPUTS}, the stream bounded a little above. */
    private static TarSink outputs(Path target) {
        TarExtractor extractor = TarExtractor.into(target, OUTPUTS);
        return in -> extractor.readFrom(Bounded.input(in, OUTPUTS.bytes() + OUTPUTS.bytes() / 8 + MiB, null, "outputs"));
    }

    private static void assertRefused(ThrowingCallable download, String... reasonParts) {
        assertThatThrownBy(download).isInstanceOfSatisfying(ExecutorException.class, e -> {
            assertThat(e.failure().kind()).as(e.failure().reason()).isEqualTo(Failure.Kind.LIMIT);
            assertThat(e.failure().reason()).contains(reasonParts);
        });
    }

    private static void assertNoLinkLeadsOutside(Path dir) throws IOException {
        Path real = dir.toRealPath();
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path link : all.filter(Files::isSymbolicLink).toList()) {
                try {
                    assertThat(link.toRealPath()).as("%s leads outside", link).startsWith(real);
                } catch (IOException dangling) {
                    // Leads nowhere, so not outside either.
                }
            }
        }
    }

    private static long bytesUnder(Path dir) throws IOException {
        try (Stream<Path> all = Files.walk(dir)) {
            long sum = 0;
            for (Path p : all.filter(p -> Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)).toList()) {
                sum += Files.size(p);
            }
            return sum;
        }
    }

    private static String perms(Path p) throws IOException {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(p, LinkOption.NOFOLLOW_LINKS));
    }
}
