package dev.knotless.runner.run.output;

import dev.knotless.checks.TestSummary;
import dev.knotless.executor.ExecutorException;
import dev.knotless.executor.ShellPayload;
import dev.knotless.plan.Reports;
import dev.knotless.runner.run.phase.Findings;
import dev.knotless.runner.run.phase.Phase;
import dev.knotless.runner.run.phase.Probe;
import dev.knotless.runner.run.phase.RunContext;
import dev.knotless.tar.ArchiveLimits;
import dev.knotless.tar.Bounded;
import dev.knotless.tar.TarExtractor;
import dev.knotless.time.Deadline;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * Reads the run's JUnit XML reports ({@code reports.junit}) after the steps, a failure's too, into
 * the check's test summary; a failing run's reason then names its first failed test. Above the
 * seam, with what every executor has: a probe lists the candidate files ({@code find}), the
 * runner matches them against the patterns, a second probe copies the matches to one directory,
 * and that is downloaded as a bounded archive. Reports never decide the run: a report that cannot
 * be read is a note on the summary and a line in the log.
 */
public final class CollectReports implements Phase {

    /** Where the matched reports are gathered in the run: writable by any user, never an output. */
    static final String GATHERED = "/tmp/.knotless-reports";
    static final int MOST_FILES = 500;
    /** A probe's script travels as one argument, which Linux caps at 128 KiB. */
    static final int SCRIPT_BYTES = 100_000;
    static final int LISTING_BYTES = 4 << 20;
    static final long REPORT_BYTES = 16L << 20;
    static final long ALL_REPORT_BYTES = 64L << 20;

    private final Reports reports;
    private final String workspace;
    private final Path outputDir;
    private final Duration killGrace;
    private @Nullable TestSummary tests;

    /**
     * @param workspace the directory the report patterns are relative to (the plan's workspace)
     * @param outputDir the check's output directory: the reports are read beside it, never in it
     * @param killGrace between TERM and KILL: the download may take 12 of them
     */
    public CollectReports(Reports reports, String workspace, Path outputDir, Duration killGrace) {
        this.reports = reports;
        this.workspace = workspace;
        this.outputDir = outputDir;
        this.killGrace = killGrace;
    }

    @Override
    public boolean runsAfterFailure() {
        return true;
    }

    @Override
    public Findings addTo(Findings findings) {
        return findings.withTests(tests);
    }

    @Override
    public void run(RunContext run) {
        if (reports.junit().isEmpty()) {
            return;
        }
        JUnitXml summary = new JUnitXml();
        try {
            List<String> matched = matched(run, summary);
            if (matched.isEmpty()) {
                summary.note("no file in " + workspace + " matches " + String.join(", ", reports.junit()));
            } else {
                read(run, matched, summary);
            }
        } catch (ExecutorException | IOException | UncheckedIOException e) {
            String why = e instanceof ExecutorException x ? x.failure().reason() : String.valueOf(e.getMessage());
            summary.note("test reports were not read: " + why);
        }
        TestSummary read = summary.summary();
        tests = read;
        run.log().notice("test reports: " + (read.files() == 0 ? "none read" : read.line() + " in " + read.files() + " file"
                + (read.files() == 1 ? "" : "s")));
        read.notes().forEach(n -> run.log().notice("test reports: " + n));
        read.failed().stream().limit(10).forEach(f -> run.log().notice("failed test: " + f.qualifiedName()
                + (f.message().isEmpty() ? "" : ": " + f.message().lines().findFirst().orElse(""))));
        if (!read.failed().isEmpty()) {
            run.verdict().nameFirstFailedTest(read.failed().getFirst().qualifiedName());
        }
    }

    /** The report files in the run, relative to the workspace, in name order; capped at {@link #MOST_FILES}. */
    private List<String> matched(RunContext run, JUnitXml summary) throws ExecutorException {
        StringBuilder find = new StringBuilder("find " + ShellPayload.quote(workspace) + " -type f");
        Set<String> names = reports.junitFileNames();
        if (!names.isEmpty()) {
            find.append(" \\(");
            String or = "";
            for (String name : names) {
                find.append(or).append(" -name ").append(ShellPayload.quote(name));
                or = " -o";
            }
            find.append(" \\)");
        }
        find.append(" 2>/dev/null; true");
        String listing = probe(run, "list test reports", find.toString(), LISTING_BYTES);
        String prefix = workspace + "/";
        List<String> matched = listing.lines().filter(l -> l.startsWith(prefix)).map(l -> l.substring(prefix.length()))
                .filter(reports::isJunit).sorted().toList();
        if (matched.size() > MOST_FILES) {
            summary.note(matched.size() + " files match; the first " + MOST_FILES + " by name are read");
            return matched.subList(0, MOST_FILES);
        }
        return matched;
    }

    /**
     * The script that gathers {@code files} (relative to {@code workspace}) into {@code dir} as 1, 2,
     * ...: a file over {@link #REPORT_BYTES} is not copied but marked {@code N.over}, and one that
     * would take the gathered bytes past {@link #ALL_REPORT_BYTES} is marked {@code N.full}, so one
     * large report never voids the others' archive. A copy stops at one byte over the bound,
     * whatever the file does meanwhile. Files past the script's own size are left out; returns how
     * many it gathers with the script.
     */
    static Gathering gatherScript(String dir, String workspace, List<String> files) {
        StringBuilder script = new StringBuilder("d=" + ShellPayload.quote(dir) + "; rm -rf \"$d\" && mkdir -p \"$d\" || exit 1\n"
                + "t=0\n"
                + "g() {\n"
                + "  if [ -n \"$(find \"$2\" -prune -size +" + REPORT_BYTES + "c 2>/dev/null)\" ]; then : > \"$d/$1.over\"; return; fi\n"
                + "  s=$(wc -c 2>/dev/null < \"$2\") || return 0\n"
                + "  if [ $((t + s)) -gt " + ALL_REPORT_BYTES + " ]; then : > \"$d/$1.full\"; return; fi\n"
                + "  head -c " + (REPORT_BYTES + 1) + " -- \"$2\" > \"$d/$1\" 2>/dev/null && t=$((t + s)) || rm -f \"$d/$1\"\n"
                + "}\n");
        int gathered = 0;
        for (String file : files) {
            String line = "g " + (gathered + 1) + " " + ShellPayload.quote(workspace + "/" + file) + "\n";
            if (script.length() + line.length() > SCRIPT_BYTES) {
                break;
            }
            script.append(line);
            gathered++;
        }
        return new Gathering(script.toString(), gathered);
    }

    /** A gathering script, and how many of the files it gathers (the first ones). */
    record Gathering(String script, int files) {}

    /** Gathers {@code files} into {@link #GATHERED} in the run (as 1, 2, …), downloads them, and reads each. */
    private void read(RunContext run, List<String> files, JUnitXml summary) throws ExecutorException, IOException {
        Gathering gathering = gatherScript(GATHERED, workspace, files);
        int gathered = gathering.files();
        if (gathered < files.size()) {
            summary.note((files.size() - gathered) + " more files match; their names were too long to gather them all");
        }
        probe(run, "gather test reports", gathering.script(), 64 << 10);
        // beside the run's outputs in the state directory, hidden, and gone once read
        Path dir = Files.createTempDirectory(Files.createDirectories(outputDir.getParent()), ".reports-");
        try {
            Deadline deadline = run.deadlineIn(killGrace.multipliedBy(12));
            TarExtractor extractor = TarExtractor.into(dir, ArchiveLimits.ofBytesAndEntries(ALL_REPORT_BYTES, MOST_FILES + 2));
            run.session().download(GATHERED, in -> extractor.readFrom(
                    Bounded.input(in, ALL_REPORT_BYTES + (1 << 20), deadline, "test reports")), run.signal());
            for (int i = 1; i <= gathered; i++) {
                String name = files.get(i - 1);
                Path report = dir.resolve(String.valueOf(i));
                if (Files.exists(dir.resolve(i + ".over"), java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                    summary.note(dev.knotless.tar.Printable.name(name) + " is over " + (REPORT_BYTES >> 20) + " MiB: not read");
                } else if (Files.exists(dir.resolve(i + ".full"), java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                    summary.note(dev.knotless.tar.Printable.name(name) + " was not read: the reports before it came to "
                            + (ALL_REPORT_BYTES >> 20) + " MiB");
                } else if (!Files.isRegularFile(report, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                    summary.note(dev.knotless.tar.Printable.name(name) + " could not be read in the run");
                } else if (Files.size(report) > REPORT_BYTES) {
                    summary.note(dev.knotless.tar.Printable.name(name) + " is over " + (REPORT_BYTES >> 20) + " MiB: not read");
                } else {
                    try (InputStream in = Files.newInputStream(report)) {
                        summary.add(dev.knotless.tar.Printable.name(name), in);
                    }
                }
            }
        } finally {
            try (Stream<Path> left = Files.walk(dir)) {
                for (Path p : (Iterable<Path>) left.sorted(Comparator.reverseOrder())::iterator) {
                    Files.deleteIfExists(p);
                }
            }
        }
    }

    /** Runs {@code script} as a probe and returns its stdout, at most {@code most} bytes of it. */
    private static String probe(RunContext run, String name, String script, int most) throws ExecutorException {
        return Probe.run(run.session(), name, script, most, run.signal()).text();
    }
}
