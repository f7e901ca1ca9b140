package dev.knotless.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.knotless.testkit.TestImages;
import dev.knotless.testkit.TestRepo;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real JUnit reports, not hand-written XML: {@code examples/junit} is built and tested by Maven in
 * the JDK image on the Docker Engine, and its Surefire reports (one test passes, one fails, one is
 * skipped) become the check's {@code tests}, the run's reason and the CLI's summary.
 */
class JUnitReportIT {

    static final String FAILED_CLASS = "example.cart.CartTest";
    static final String FAILED_TEST = "totalIsTheSumOfThePrices";
    static final String FAILED_MESSAGE = "total in cents of 250 + 125 ==> expected: <375> but was: <374>";

    @TempDir Path tmp;
    final String runnerId = "junit-it-" + UUID.randomUUID().toString().substring(0, 8);

    /** scripts/test builds the image before the suite: without it this test fails rather than skip. */
    @BeforeAll
    static void theJdkImageIsThere() {
        TestImages.requirePresent(TestImages.JDK_MAVEN);
    }

    @AfterEach
    void nothingIsLeftBehind() throws Exception {
        assertThat(Docker.containersOf(runnerId)).as("containers left by runner " + runnerId).isEmpty();
    }

    @Test
    void aMavenBuildWithOneFailingAndOneSkippedTestFailsNamingTheFailedTest() throws Exception {
        TestRepo repo = copyOf(TestImages.repositoryRoot().resolve("examples/junit"), tmp.resolve("repo"));
        repo.commit();

        CliRun r = CliRun.exec(tmp.resolve("state"), runnerId, repo.dir);

        assertThat(r.exit()).as(r.err()).isEqualTo(1);
        assertThat(r.checks()).as(r.err()).hasSize(1);
        JsonNode check = r.checks().get(0);
        assertThat(check.get("workflow").asText()).isEqualTo("test");
        assertThat(check.get("status").asText()).as(r.err()).isEqualTo("failure");
        // Maven exits 1 when a test fails; the reason adds the first failed test from the reports
        assertThat(check.get("reason").asText())
                .isEqualTo("step 'test' exited with 1; first failed test: " + FAILED_CLASS + "." + FAILED_TEST);

        JsonNode tests = check.get("tests");
        assertThat(tests).as(r.err()).isNotNull();
        assertThat(tests.path("notes").size()).as("notes: %s", tests.path("notes")).isZero();
        assertThat(tests.get("files").asInt()).isEqualTo(1);
        assertThat(tests.get("tests").asInt()).isEqualTo(3);
        assertThat(tests.get("failures").asInt()).isEqualTo(1);
        assertThat(tests.get("errors").asInt()).isZero();
        assertThat(tests.get("skipped").asInt()).isEqualTo(1);
        assertThat(tests.get("failed")).hasSize(1);
        JsonNode failed = tests.get("failed").get(0);
        assertThat(failed.get("className").asText()).isEqualTo(FAILED_CLASS);
        assertThat(failed.get("name").asText()).isEqualTo(FAILED_TEST);
        assertThat(failed.get("message").asText().lines().findFirst()).hasValue(FAILED_MESSAGE);
        assertThat(failed.get("error").asBoolean()).isFalse();

        assertThat(r.err()).contains("tests 3 tests: 1 passed, 1 failed, 1 skipped")
                .contains("✗ " + FAILED_CLASS + "." + FAILED_TEST + ": " + FAILED_MESSAGE);
        String log = Files.readString(Path.of(check.get("log").asText()));
        assertThat(log).contains("Tests run: 3, Failures: 1, Errors: 0, Skipped: 1")
                .contains("failed test: " + FAILED_CLASS + "." + FAILED_TEST + ": " + FAILED_MESSAGE);
    }

    /**
     * One report far over its bound (a 100 MB file, more than all reports together may be) among
     * good ones: it is named and skipped, and the others are read. Before, the one archive of all
     * reports passed its bound and none was read.
     */
    @Test
    void aHugeReportIsNamedAndSkippedAndTheOthersAreRead() throws Exception {
        String suite = "<testsuite name=\\\"%s\\\"><testcase classname=\\\"%s\\\" name=\\\"works\\\"/></testsuite>";
        TestRepo repo = new TestRepo(tmp.resolve("repo")).workflow("reports.yaml", """
                image: %s
                steps:
                  - name: test
                    run: |
                      mkdir -p reports
                      echo "%s" > reports/TEST-a.xml
                      truncate -s 100000000 reports/TEST-huge.xml
                      echo "%s" > reports/TEST-z.xml
                reports: {junit: ["reports/TEST-*.xml"]}
                """.formatted(ExecIT.IMAGE, suite.formatted("a", "A"), suite.formatted("z", "Z")));
        repo.commit();

        CliRun r = CliRun.exec(tmp.resolve("state"), runnerId, repo.dir);

        assertThat(r.exit()).as(r.err()).isZero();
        JsonNode tests = r.checks().get(0).get("tests");
        assertThat(tests).as(r.err()).isNotNull();
        assertThat(tests.get("files").asInt()).as("%s", tests).isEqualTo(2);
        assertThat(tests.get("tests").asInt()).isEqualTo(2);
        assertThat(tests.get("notes").toString()).contains("reports/TEST-huge.xml is over 16 MiB: not read");
    }

    /** A git repository in {@code dir} holding the files of {@code example}, as a user's would; a local build's target/ is left out. */
    static TestRepo copyOf(Path example, Path dir) throws IOException, InterruptedException {
        TestRepo repo = new TestRepo(dir);
        List<Path> files;
        try (Stream<Path> walk = Files.walk(example)) {
            files = walk.filter(Files::isRegularFile)
                    .filter(p -> !example.relativize(p).startsWith("target"))
                    .toList();
        }
        for (Path file : files) {
            Path to = dir.resolve(example.relativize(file).toString());
            Files.createDirectories(to.getParent());
            Files.copy(file, to, StandardCopyOption.COPY_ATTRIBUTES);
        }
        return repo;
    }
}
