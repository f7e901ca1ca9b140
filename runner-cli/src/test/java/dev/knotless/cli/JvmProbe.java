package dev.knotless.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Looks at another JVM from outside, as an operator would: {@code jcmd} for the heap,
 * {@code /proc/<pid>/status} for threads and resident memory. Nothing is added to the daemon.
 */
final class JvmProbe {

    private static final Pattern HEAP_USED = Pattern.compile("heap\\s+total(?: reserved)? \\d+K, (?:committed \\d+K, )?used (\\d+)K");

    private final long pid;
    private final String jcmd;

    JvmProbe(long pid) {
        this.pid = pid;
        String home = System.getProperty("java.home");
        this.jcmd = Path.of(home, "bin", "jcmd").toString();
    }

    /** Heap in use now, in KiB, garbage included. */
    long heapUsedKb() throws IOException, InterruptedException {
        String out = jcmd("GC.heap_info");
        Matcher m = HEAP_USED.matcher(out);
        if (!m.find()) {
            throw new IOException("no heap total in jcmd GC.heap_info: " + out.strip());
        }
        return Long.parseLong(m.group(1));
    }

    /** Heap in use after a full collection, in KiB: what is really retained. */
    long heapRetainedKb() throws IOException, InterruptedException {
        jcmd("GC.run");
        return heapUsedKb();
    }

    /** Kernel threads of the process: every platform thread, virtual threads' carriers included. */
    int threads() throws IOException {
        return (int) status("Threads:");
    }

    /** Live platform threads by name, digits folded ({@code pool-#-thread-#}), from {@code jcmd Thread.print}. */
    SortedMap<String, Integer> threadNames() throws IOException, InterruptedException {
        SortedMap<String, Integer> names = new TreeMap<>();
        for (String line : jcmd("Thread.print").split("\\R")) {
            if (line.startsWith("\"")) {
                String name = line.substring(1, line.indexOf('"', 1)).replaceAll("\\d+", "#");
                names.merge(name, 1, Integer::sum);
            }
        }
        return names;
    }

    long rssKb() throws IOException {
        return status("VmRSS:");
    }

    private long status(String field) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc", String.valueOf(pid), "status"))) {
            if (line.startsWith(field)) {
                return Long.parseLong(line.substring(field.length()).strip().split("\\s+")[0]);
            }
        }
        throw new IOException("no " + field + " in /proc/" + pid + "/status");
    }

    private String jcmd(String command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(jcmd, String.valueOf(pid), command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (p.waitFor() != 0) {
            throw new IOException("jcmd " + pid + " " + command + " failed: " + out.strip());
        }
        return out;
    }
}
