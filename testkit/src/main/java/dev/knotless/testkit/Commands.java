package dev.knotless.testkit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/** Host commands a test runs for its setup and its checks (ip, runc, iptables, docker). */
public final class Commands {

    private Commands() {}

    /** True when {@code argv} ran and exited 0 within 30 s; its output is dropped. */
    public static boolean runs(String... argv) {
        try {
            Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** The output (stdout and stderr) of {@code argv}, which must exit 0 within two minutes. */
    public static String output(String... argv) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(2, TimeUnit.MINUTES) || p.exitValue() != 0) {
            throw new IllegalStateException(String.join(" ", argv) + " failed: " + out);
        }
        return out;
    }
}
