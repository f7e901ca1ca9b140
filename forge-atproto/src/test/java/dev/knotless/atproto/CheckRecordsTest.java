package dev.knotless.atproto;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.atproto.xrpc.Records;
import dev.knotless.checks.CheckStatus;
import dev.knotless.checks.TestSummary;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class CheckRecordsTest {

    private static final String REPO = "at://did:plc:owner/dev.knotless.repo/hello";

    @Test
    void aRunningCheckHasItsSubjectAndStatusAndNoStepsOrLogYet() {
        ObjectNode r = CheckRecords.of(Checks.running("run-1"), REPO, null, List.of());
        assertThat(r.get("$type").asText()).isEqualTo("dev.knotless.check");
        assertThat(r.get("runId").asText()).isEqualTo("run-1");
        assertThat(r.get("repo").asText()).isEqualTo(REPO);
        assertThat(r.get("commit").asText()).isEqualTo("0123456789abcdef0123456789abcdef01234567");
        assertThat(r.get("workflow").asText()).isEqualTo("unit");
        assertThat(r.get("event").asText()).isEqualTo("push");
        assertThat(r.get("status").asText()).isEqualTo("running");
        assertThat(r.get("startedAt").asText()).isEqualTo("2026-12-03T10:00:00Z");
        assertThat(r.get("createdAt").asText()).isEqualTo("2026-12-03T10:00:00Z");
        assertThat(r.has("finishedAt")).isFalse();
        assertThat(r.has("log")).isFalse();
        assertThat(r.get("steps")).isEmpty();
    }

    @Test
    void anEndedCheckHasStepsWithExitCodesTestsLogAndOutputs() {
        ObjectNode blob = JsonNodeFactory.instance.objectNode().put("$type", "blob");
        blob.putObject("ref").put("$link", "bafklog");
        var check = Checks.ended("run-1", CheckStatus.FAILURE, null)
                .withTests(new TestSummary(1, 3, 1, 0, 1, 250, List.of(new TestSummary.FailedTest("a.B", "c", "boom", false)), null));
        ObjectNode r = CheckRecords.of(check, REPO, new Records.Blob(blob),
                List.of(new CheckRecords.OutputBlob("report.html", "text/html", 12, null)));
        assertThat(r.get("status").asText()).isEqualTo("failure");
        assertThat(r.get("reason").asText()).isEqualTo("step test exited 3");
        assertThat(r.get("finishedAt").asText()).isEqualTo("2026-12-03T10:00:42Z");
        assertThat(r.get("steps")).hasSize(3);
        assertThat(r.get("steps").get(1).get("exitCode").asInt()).isEqualTo(3);
        assertThat(r.get("steps").get(1).get("status").asText()).isEqualTo("failure");
        assertThat(r.get("steps").get(2).has("exitCode")).as("a skipped step has no exit code").isFalse();
        assertThat(r.get("tests").get("failures").asInt()).isEqualTo(1);
        assertThat(r.get("tests").get("failed").get(0).get("className").asText()).isEqualTo("a.B");
        assertThat(r.get("log").get("ref").get("$link").asText()).isEqualTo("bafklog");
        assertThat(r.get("outputs").get(0).get("size").asLong()).isEqualTo(12);
        assertThat(r.get("outputs").get(0).has("blob")).isFalse();
    }

    @Test
    void longStringsAreCutToTheByteLimitOnACharacterBoundary() {
        String s = "é".repeat(1000);
        String cut = CheckRecords.cap(s, 101);
        assertThat(cut.getBytes(StandardCharsets.UTF_8).length).isLessThanOrEqualTo(101);
        assertThat(cut).endsWith("…").startsWith("éé");
        assertThat(cut.substring(0, cut.length() - 1)).matches("é+");
        assertThat(CheckRecords.cap("short", 10)).isEqualTo("short");
    }
}
