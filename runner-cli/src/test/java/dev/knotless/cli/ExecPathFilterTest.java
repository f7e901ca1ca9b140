package dev.knotless.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.testkit.TestRepo;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code exec}'s path filters: by hand there is no push, so a filter sees what the commit changed
 * against its first parent, and a workflow it leaves out is named. Nothing runs here: the runs a
 * filter lets through are the exec ITs'.
 */
class ExecPathFilterTest {

    @TempDir Path tmp;

    @Test
    void aWorkflowWhosePathFilterNoFileOfTheCommitPassesIsNamedAndNotRun() throws Exception {
        TestRepo repo = new TestRepo(tmp.resolve("repo"))
                .file(".github/workflows/app.yml", """
                        name: app
                        on: {push: {paths: ['src/**']}}
                        jobs: {build: {runs-on: linux, steps: [{run: make}]}}
                        """)
                .file("src/App.java", "class App {}\n");
        repo.commit();
        String docs = repo.file("docs/guide.md", "how\n").commit();

        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cli = Main.commandLine();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        int exit = cli.execute("exec", repo.dir.toString(), "--state-dir", tmp.resolve("state").toString());

        assertThat(exit).as(err.toString()).isEqualTo(ExitCodes.SUCCESS);
        assertThat(out.toString()).isEqualTo("not run: app / build (no file " + docs.substring(0, 12)
                + " changed passes its path filter)\n");
        assertThat(err.toString()).isEqualTo("knotless-run: no workflow in " + repo.dir + " at " + docs.substring(0, 12)
                + " runs on push\n");
    }
}
