package dev.knotless.runner.run.output;

import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.checks.Check;
import dev.knotless.checks.CheckStatus;
import dev.knotless.executor.OutputSink;
import dev.knotless.executor.StepOutcome;
import dev.knotless.executor.StepPayload;
import dev.knotless.runner.run.RunFixture;
import dev.knotless.runner.run.request.Cancellation;
import dev.knotless.testkit.FakeSession;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link CollectReports} on a {@link FakeSession}: what it asks the run, and what the check says. */
class CollectReportsTest {

    @TempDir Path dir;
    RunFixture fixture;
    FakeSession session;

    @BeforeEach
    void setUp() {
        fixture = new RunFixture(dir);
        session = fixture.session;
    }

    private void listing(String... paths) {
        session.on("list test reports", (payload, output, signal) -> {
            byte[] out = (String.join("\n", paths) + "\n").getBytes(StandardCharsets.UTF_8);
            output.write(OutputSink.Stream.STDOUT, out, 0, out.length);
            return new StepOutcome.Exited(0);
        });
    }

    @Test
    void aFailingRunsReasonNamesItsFirstFailedTestAndTheCheckCarriesTheSummary() {
        listing("/work/core/target/surefire-reports/TEST-com.acme.CartTest.xml", "/work/pom.xml",
                "/work/web/target/surefire-reports/TEST-com.acme.WebTest.xml", "/work/core/target/classes/log4j2.xml");
        session.downloads(CollectReports.GATHERED, RunFixture.tar(Map.of(
                "1", JUnitXmlTest.SUREFIRE.getBytes(StandardCharsets.UTF_8),
                "2", "<testsuite><testcase name=\"ok\" classname=\"com.acme.WebTest\"/></testsuite>".getBytes(StandardCharsets.UTF_8))));
        session.exits("test", 1, "");

        Check check = fixture.execute("""
                reports: {junit: ["**/surefire-reports/TEST-*.xml"]}
                steps:
                  - {name: test, run: mvn verify}
                """, new Cancellation());

        assertThat(check.status()).isEqualTo(CheckStatus.FAILURE);
        assertThat(check.reason()).isEqualTo("step 'test' exited with 1; first failed test: com.acme.CartTest.totalsPrices");
        assertThat(check.tests()).isNotNull();
        assertThat(check.tests().files()).isEqualTo(2);
        assertThat(check.tests().tests()).isEqualTo(5);
        assertThat(check.tests().failed()).extracting(f -> f.name()).containsExactly("totalsPrices", "breaks");
        StepPayload list = session.ran().stream().filter(p -> p.name().equals("list test reports")).findFirst().orElseThrow();
        assertThat(list.kind()).isEqualTo(StepPayload.Kind.PROBE);
        assertThat(list.command().getLast()).isEqualTo("find /work -type f \\( -name 'TEST-*.xml' \\) 2>/dev/null; true");
        StepPayload gather = session.ran().stream().filter(p -> p.name().equals("gather test reports")).findFirst().orElseThrow();
        assertThat(gather.command().getLast())
                .contains("g 1 /work/core/target/surefire-reports/TEST-com.acme.CartTest.xml\n")
                .contains("g 2 /work/web/target/surefire-reports/TEST-com.acme.WebTest.xml\n")
                .doesNotContain("pom.xml", "log4j2");
        assertThat(fixture.log(check)).contains("[knotless] test reports: 5 tests: 2 passed, 1 failed, 1 errors, 1 skipped in 2 files",
                "[knotless] failed test: com.acme.CartTest.totalsPrices: expected: <3> but was: <4>");
    }

    @Test
    void aRunWithoutReportsAsksNothingAndAPatternMatchingNothingIsANote() {
        Check plain = fixture.execute("steps: [{run: 'true'}]", new Cancellation());
        assertThat(plain.tests()).isNull();
        assertThat(session.ranNames()).doesNotContain("list test reports");

        listing("/work/README.md");
        Check none = fixture.execute("""
                reports: {junit: [build/test-results/**]}
                steps: [{run: 'true'}]
                """, new Cancellation());
        assertThat(none.status()).isEqualTo(CheckStatus.SUCCESS);
        assertThat(none.tests().files()).isZero();
        assertThat(none.tests().notes()).containsExactly("no file in /work matches build/test-results/**");
        assertThat(session.ran()).filteredOn(p -> p.name().equals("list test reports"))
                .extracting(p -> p.command().getLast()).contains("find /work -type f 2>/dev/null; true");
    }

    /**
     * The gathering script in a real shell: one report far over the bound among good ones is marked,
     * not copied, and the others are gathered; reports past the total bound are marked too.
     */
    @Test
    void oneReportOverItsBoundIsMarkedAndTheOthersAreGathered() throws Exception {
        Path work = Files.createDirectories(dir.resolve("work"));
        Files.writeString(work.resolve("a.xml"), "<testsuite/>");
        try (RandomAccessFile huge = new RandomAccessFile(work.resolve("huge.xml").toFile(), "rw")) {
            huge.setLength(2L << 30); // sparse: 2 GiB that take no disk
        }
        Files.writeString(work.resolve("c.xml"), "<testsuite name=\"c\"/>");
        Path gathered = dir.resolve("gathered");

        CollectReports.Gathering g = CollectReports.gatherScript(gathered.toString(), work.toString(),
                List.of("a.xml", "huge.xml", "c.xml", "missing.xml"));
        Process sh = new ProcessBuilder("/bin/sh", "-c", g.script()).redirectErrorStream(true).start();
        String said = new String(sh.getInputStream().readAllBytes(), StandardCharsets.UTF_8);

        assertThat(sh.waitFor()).as(said).isZero();
        assertThat(g.files()).isEqualTo(4);
        try (Stream<Path> files = Files.list(gathered)) {
            assertThat(files.map(f -> f.getFileName().toString())).containsExactlyInAnyOrder("1", "2.over", "3");
        }
        assertThat(Files.readString(gathered.resolve("3"))).isEqualTo("<testsuite name=\"c\"/>");
    }

    @Test
    void reportsPastTheTotalBoundAreMarkedFull() throws Exception {
        Path work = Files.createDirectories(dir.resolve("work"));
        List<String> names = new ArrayList<>();
        for (int i = 1; i <= 6; i++) { // 6 x 15 MiB: the fifth would pass 64 MiB
            try (RandomAccessFile f = new RandomAccessFile(work.resolve(i + ".xml").toFile(), "rw")) {
                f.setLength(15L << 20);
            }
            names.add(i + ".xml");
        }
        Path gathered = dir.resolve("gathered");
        Process sh = new ProcessBuilder("/bin/sh", "-c", CollectReports.gatherScript(gathered.toString(), work.toString(), names).script())
                .redirectErrorStream(true).start();
        String said = new String(sh.getInputStream().readAllBytes(), StandardCharsets.UTF_8);

        assertThat(sh.waitFor()).as(said).isZero();
        try (Stream<Path> files = Files.list(gathered)) {
            assertThat(files.map(f -> f.getFileName().toString())).containsExactlyInAnyOrder("1", "2", "3", "4", "5.full", "6.full");
        }
    }

    @Test
    void theMarkedReportsAreNamedAndTheOthersRead() {
        listing("/work/reports/TEST-a.xml", "/work/reports/TEST-huge.xml", "/work/reports/TEST-late.xml");
        session.downloads(CollectReports.GATHERED, RunFixture.tar(Map.of(
                "1", "<testsuite><testcase name=\"ok\" classname=\"A\"/></testsuite>".getBytes(StandardCharsets.UTF_8),
                "2.over", new byte[0],
                "3.full", new byte[0])));

        Check check = fixture.execute("""
                reports: {junit: ["reports/TEST-*.xml"]}
                steps: [{run: 'true'}]
                """, new Cancellation());

        assertThat(check.tests().files()).isEqualTo(1);
        assertThat(check.tests().tests()).isEqualTo(1);
        assertThat(check.tests().notes()).containsExactly("reports/TEST-huge.xml is over 16 MiB: not read",
                "reports/TEST-late.xml was not read: the reports before it came to 64 MiB");
    }

    @Test
    void aRunWhoseProbeFailsStillPassesWithANote() {
        session.exits("list test reports", 127, "");
        Check check = fixture.execute("""
                reports: {junit: ["*.xml"]}
                steps: [{run: 'true'}]
                """, new Cancellation());

        assertThat(check.status()).isEqualTo(CheckStatus.SUCCESS);
        assertThat(check.tests().notes()).containsExactly("test reports were not read: list test reports exited with 127");
    }
}
