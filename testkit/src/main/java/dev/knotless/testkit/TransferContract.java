package dev.knotless.testkit;

import static dev.knotless.testkit.ContractSupport.MiB;
import static dev.knotless.testkit.ContractSupport.bigFile;
import static dev.knotless.testkit.ContractSupport.describeTree;
import static dev.knotless.testkit.ContractSupport.file;
import static dev.knotless.testkit.ContractSupport.listing;
import static dev.knotless.testkit.ContractSupport.sh;
import static dev.knotless.testkit.ContractSupport.tarOf;
import static dev.knotless.testkit.ContractSupport.writeTar;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.knotless.executor.ExecutorException;
import dev.knotless.executor.Failure;
import dev.knotless.executor.Session;
import dev.knotless.executor.StepOutcome;
import dev.knotless.executor.StopSignal;
import dev.knotless.executor.TarSink;
import dev.knotless.executor.TarSource;
import dev.knotless.tar.Bounded;
import dev.knotless.tar.DirectoryTar;
import dev.knotless.tar.TarExtractor;
import dev.knotless.tar.TarStreams;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.TreeMap;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.junit.jupiter.api.Test;

/**
 * The contract's transfers: a checkout and outputs round trip byte for byte (modes, links, empty
 * directories, Unicode names, 100 MiB), uploads make missing directories and keep their byte
 * limit, a stopped upload, a missing directory, and downloads whose names or links would escape.
 * Part of {@link ExecutorContract}, which every executor's integration test extends.
 */
public interface TransferContract {

    /** The test's runner, executor and sessions. */
    ContractRun contract();

    @Test
    default void checkoutRoundTripKeepsModesSymlinksEmptyDirectoriesUnicodeNamesAndContent() throws Exception {
        Path src = Files.createDirectories(contract().temp().resolve("checkout"));
        file(src.resolve("bin/run.sh"), "#!/bin/sh\necho ran\n", "rwxr-xr-x");
        file(src.resolve("README.txt"), "read me\n", "rw-r--r--");
        file(src.resolve("private.txt"), "mine\n", "rw-------");
        file(src.resolve("dir/nested/deep/file.txt"), "deep\n", "rw-r--r--");
        file(src.resolve("ünïcødé 名前.txt"), "unicode ✓\n", "rw-r--r--");
        Files.createSymbolicLink(src.resolve("link"), Path.of("README.txt"));
        Files.createSymbolicLink(src.resolve("dirlink"), Path.of("dir/nested"));
        Files.createDirectories(src.resolve("empty"));
        String bigHash = bigFile(src.resolve("big.bin"), 100);

        Session s = contract().open();
        s.upload("/work", DirectoryTar.of(src), StopSignal.none());
        RecordingOutput out = new RecordingOutput();
        StepOutcome outcome = s.run(sh("inspect", """
                set -e
                ls -la
                sha256sum big.bin
                test -x bin/run.sh && test ! -x README.txt
                [ "$(readlink link)" = README.txt ] && [ "$(cat link)" = "read me" ]
                test -d empty && test -z "$(ls -A empty)"
                ./bin/run.sh
                cat "ünïcødé 名前.txt"
                pwd
                """), out, StopSignal.none());
        assertThat(outcome).as("stdout: %s%nstderr: %s", out.stdout(), out.stderr()).isEqualTo(new StepOutcome.Exited(0));
        assertThat(out.stdout()).contains(bigHash + "  big.bin", "ran\n", "unicode ✓\n", "/work\n");

        Path back = Files.createDirectories(contract().temp().resolve("back"));
        s.download("/work", TarExtractor.into(back, 512 * MiB), StopSignal.none());
        assertThat(describeTree(back)).isEqualTo(describeTree(src));
    }

    @Test
    default void outputsComeBackByteForByte() throws Exception {
        Session s = contract().open();
        RecordingOutput out = new RecordingOutput();
        StepOutcome outcome = s.run(sh("outputs", "set -e\n"
                + "echo '" + ContractSupport.PIXEL_PNG + "' | base64 -d > /outputs/pixel.png\n"
                + "mkdir -p /outputs/reports\n"
                + "printf 'total: 3\\npassed: 3\\n' > /outputs/reports/summary.txt\n"), out, StopSignal.none());
        assertThat(outcome).as("stderr: %s", out.stderr()).isEqualTo(new StepOutcome.Exited(0));

        Path back = Files.createDirectories(contract().temp().resolve("outputs"));
        s.download("/outputs", TarExtractor.into(back, 16 * MiB), StopSignal.none());
        assertThat(back.resolve("pixel.png")).hasBinaryContent(Base64.getDecoder().decode(ContractSupport.PIXEL_PNG));
        assertThat(back.resolve("reports/summary.txt")).hasContent("total: 3\npassed: 3\n");
    }

    @Test
    default void uploadCreatesMissingDirectoriesAndLeavesExistingOnesAlone() throws Exception {
        Path src = Files.createDirectories(contract().temp().resolve("small"));
        file(src.resolve("hello.txt"), "hello\n", "rw-r--r--");
        Session s = contract().open();
        s.upload("/tmp/deep/er/dir", DirectoryTar.of(src), StopSignal.none());
        RecordingOutput out = new RecordingOutput();
        StepOutcome outcome = s.run(sh("check", "cat /tmp/deep/er/dir/hello.txt; stat -c %a /tmp"), out, StopSignal.none());
        assertThat(outcome).as("stderr: %s", out.stderr()).isEqualTo(new StepOutcome.Exited(0));
        assertThat(out.stdout()).isEqualTo("hello\n1777\n");
    }

    @Test
    default void uploadOverItsByteLimitFailsWithLimit() throws Exception {
        Path src = Files.createDirectories(contract().temp().resolve("too-big"));
        bigFile(src.resolve("blob.bin"), 2);
        TarSource limited = out -> DirectoryTar.of(src).writeTo(Bounded.output(out, 64 * 1024, null, "checkout"));
        Session s = contract().open();
        assertThatThrownBy(() -> s.upload("/work", limited, StopSignal.none()))
                .isInstanceOfSatisfying(ExecutorException.class, e -> {
                    assertThat(e.failure().kind()).isEqualTo(Failure.Kind.LIMIT);
                    assertThat(e.failure().reason()).contains("checkout", "64 KiB");
                });
    }

    @Test
    default void anUploadStoppedHalfWayFailsWithStopped() throws Exception {
        Session s = contract().open();
        StopSignal signal = new StopSignal();
        TarSource endless = out -> {
            TarArchiveOutputStream tar = TarStreams.newOutput(out);
            TarArchiveEntry entry = new TarArchiveEntry("endless.bin");
            entry.setSize(1L << 40);
            tar.putArchiveEntry(entry);
            byte[] block = new byte[64 * 1024];
            while (true) {
                tar.write(block);
                try {
                    Thread.sleep(5);
                } catch (InterruptedException e) {
                    throw new IOException(e);
                }
            }
        };
        Thread stopper = Thread.ofVirtual().start(() -> {
            try {
                Thread.sleep(500);
            } catch (InterruptedException e) {
                return;
            }
            signal.stop(StopSignal.Reason.CANCELLED);
        });
        long started = System.nanoTime();
        assertThatThrownBy(() -> s.upload("/work", endless, signal))
                .isInstanceOfSatisfying(ExecutorException.class, e -> assertThat(e.failure().kind()).isEqualTo(Failure.Kind.STOPPED));
        stopper.join();
        // The upload is endless: only the stop ends it; the ceiling only catches one that was not stopped.
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(60));
    }

    @Test
    default void downloadOfAMissingDirectorySaysSo() throws Exception {
        Session s = contract().open();
        assertThatThrownBy(() -> s.download("/no/such/dir", in -> in.transferTo(OutputStream.nullOutputStream()), StopSignal.none()))
                .isInstanceOfSatisfying(ExecutorException.class, e -> {
                    assertThat(e.failure().kind()).isEqualTo(Failure.Kind.INFRASTRUCTURE);
                    assertThat(e.failure().reason()).contains("no such directory in the run: /no/such/dir");
                });
    }

    @Test
    default void outputsWithASymlinkPointingOutsideAreRefusedAndNothingIsWrittenOutside() throws Exception {
        Session s = contract().open();
        assertThat(s.run(sh("evil", "ln -s /etc /outputs/evil && ln -s ../../.. /outputs/up && echo x > /outputs/fine.txt"),
                new RecordingOutput(), StopSignal.none())).isEqualTo(new StepOutcome.Exited(0));
        Path parent = Files.createDirectories(contract().temp().resolve("symlink-download"));
        Path target = Files.createDirectories(parent.resolve("outputs"));
        assertThatThrownBy(() -> s.download("/outputs", TarExtractor.into(target, 16 * MiB), StopSignal.none()))
                .isInstanceOfSatisfying(ExecutorException.class, e -> {
                    assertThat(e.failure().kind()).isEqualTo(Failure.Kind.LIMIT);
                    assertThat(e.failure().reason()).contains("evil");
                });
        assertThat(listing(parent)).containsExactly("outputs");
        assertThat(Files.exists(target.resolve("evil"), LinkOption.NOFOLLOW_LINKS)).isFalse();
        assertThat(Files.exists(target.resolve("up"), LinkOption.NOFOLLOW_LINKS)).isFalse();
    }

    /**
     * The executor never produces {@code ..} or absolute names itself, so a crafted archive rides
     * through the run as a file; the sink unwraps it and hands it to the extractor.
     */
    @Test
    default void outputsWithDotDotOrAbsoluteNamesAreRefusedAndNothingIsWrittenOutside() throws Exception {
        Path parent = Files.createDirectories(contract().temp().resolve("crafted-download"));
        Path target = Files.createDirectories(parent.resolve("outputs"));
        Map<String, byte[]> crafted = new TreeMap<>();
        crafted.put("dotdot.tar", tarOf("../escape", false));
        crafted.put("absolute.tar", tarOf(parent.resolve("absolute-escape").toString(), true));
        Session s = contract().open();
        s.upload("/outputs", out -> writeTar(out, crafted), StopSignal.none());

        for (String name : crafted.keySet()) {
            TarSink unwrapping = ContractSupport.unwrapping(name, TarExtractor.into(target, MiB));
            assertThatThrownBy(() -> s.download("/outputs", unwrapping, StopSignal.none()))
                    .as(name)
                    .isInstanceOfSatisfying(ExecutorException.class, e -> {
                        assertThat(e.failure().kind()).isEqualTo(Failure.Kind.LIMIT);
                        assertThat(e.failure().reason()).contains("escape");
                    });
        }
        assertThat(listing(parent)).containsExactly("outputs");
        assertThat(listing(target)).isEmpty();
    }
}
