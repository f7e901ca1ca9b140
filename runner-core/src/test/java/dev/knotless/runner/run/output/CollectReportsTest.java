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
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
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
                .contains("cat -- /work/core/target/surefire-reports/TEST-com.acme.CartTest.xml > \"$d/1\"")
                .contains("cat -- /work/web/target/surefire-reports/TEST-com.acme.WebTest.xml > \"$d/2\"")
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
