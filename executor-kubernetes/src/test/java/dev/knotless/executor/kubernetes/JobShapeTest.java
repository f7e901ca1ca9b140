package dev.knotless.executor.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class JobShapeTest {

    @Test
    void aPlainRunIdKeepsItsReadableJobName() {
        assertThat(JobShape.jobName("run-1a2b")).isEqualTo("knotless-run-1a2b");
    }

    @Test
    void aRunIdThatIsNoDnsLabelIsCleanedShortenedAndHashed() {
        String name = JobShape.jobName("Build/PR #42 of " + "x".repeat(100));
        assertThat(name).matches("[a-z0-9]([a-z0-9-]*[a-z0-9])?").hasSizeLessThanOrEqualTo(63).startsWith("knotless-build-pr-42");
        assertThat(JobShape.jobName("a/b")).isNotEqualTo(JobShape.jobName("a.b"));
    }

    @Test
    void labelValuesStayWhenValidAndAreHashedWhenNot() {
        assertThat(JobShape.labelValue("runner-1.a_b")).isEqualTo("runner-1.a_b");
        String hashed = JobShape.labelValue("org/repo@" + "y".repeat(80));
        assertThat(hashed).matches("[A-Za-z0-9]([A-Za-z0-9._-]{0,61}[A-Za-z0-9])?").startsWith("org-repo");
        assertThat(JobShape.labelValue("a/b")).isNotEqualTo(JobShape.labelValue("a_b"));
        assertThat(JobShape.labelValue("/")).matches("[0-9a-f]{10}");
    }
}
