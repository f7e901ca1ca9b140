package dev.knotless.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.knotless.testkit.TestRepo;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A real database as a service: Debian's PostgreSQL 15 in {@code local/knotless-postgres:15}
 * (scripts/test-images) started beside the run, and a step that reaches it by its host name,
 * creates a table, writes a row and reads it back. Run by the docker and Kubernetes exec ITs.
 */
final class DatabaseServiceRun {

    static final String IMAGE = dev.knotless.testkit.TestImages.POSTGRES;

    private DatabaseServiceRun() {}

    static TestRepo repo(Path dir) throws Exception {
        TestRepo repo = new TestRepo(dir).workflow("db.yaml", """
                image: %s
                services:
                  db:
                    image: %s
                    ports: [5432]
                    wait: 90s
                steps:
                  - name: sql
                    run: |
                      psql -h db -U postgres -v ON_ERROR_STOP=1 -q -c "create table cart (item text, cents int)" \\
                        -c "insert into cart values ('apple', 125), ('pear', 250)"
                      echo "total=$(psql -h db -U postgres -tAc 'select sum(cents) from cart')"
                """.formatted(IMAGE, IMAGE));
        repo.commit();
        return repo;
    }

    /** Asserts the check and log of {@code r}, the exec of {@link #repo}. */
    static void usedTheDatabase(CliRun r) throws Exception {
        assertThat(r.exit()).as(r.err()).isZero();
        JsonNode check = r.checks().get(0);
        assertThat(check.get("status").asText()).as(r.err()).isEqualTo("success");
        String log = Files.readString(Path.of(check.get("log").asText()));
        assertThat(log).contains("total=375").contains("[knotless] service 'db' log:")
                .contains("[db] ").contains("database system is ready to accept connections");
    }
}
