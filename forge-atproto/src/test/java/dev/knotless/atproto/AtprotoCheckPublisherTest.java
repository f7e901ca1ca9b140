package dev.knotless.atproto;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.knotless.atproto.xrpc.Identity;
import dev.knotless.atproto.xrpc.XrpcClient;
import dev.knotless.checks.CheckStatus;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.CopyOnWriteArrayList;
import okhttp3.OkHttpClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The publisher's thread against {@link FakePds}, which stands in for a PDS that goes away
 * ({@code down}: every call 503), refuses records, or never answers in time. Retry delays are
 * milliseconds here; the real PDS is the ITs' (AtprotoCheckPublisherIT).
 */
class AtprotoCheckPublisherTest {

    private static final RetryPolicy FAST = new RetryPolicy(Duration.ofMillis(20), Duration.ofMillis(200), 0.5, Duration.ofMinutes(1));

    /** Only catches a hang: what these tests wait for takes milliseconds. */
    private static final Duration HANG = Duration.ofSeconds(30);

    private final FakePds pds = new FakePds();
    private final List<String> lines = new CopyOnWriteArrayList<>();
    private AtprotoCheckPublisher publisher;

    AtprotoCheckPublisherTest() throws IOException {}

    private AtprotoCheckPublisher publisher(int capacity, Duration grace) {
        return publisher(capacity, grace, new OkHttpClient());
    }

    private AtprotoCheckPublisher publisher(int capacity, Duration grace, OkHttpClient http) {
        XrpcClient client = new XrpcClient(http, pds.url(), new Identity("runner.test", FakePds.PASSWORD), new ObjectMapper());
        publisher = new AtprotoCheckPublisher(client, repo -> "https://git.example/" + repo,
                new AtprotoCheckPublisher.Settings(capacity, FAST, 1 << 20, grace), lines::add);
        return publisher;
    }

    @AfterEach
    void stop() {
        if (publisher != null) {
            publisher.close();
        }
        pds.close();
    }

    @Test
    void whileThePdsIsAwayPublishReturnsAtOnceAndOnlyTheNewestStateIsSentWhenItIsBack(@TempDir Path dir) throws Exception {
        // A client that would wait ten minutes for an answer, and a PDS that answers nothing until
        // released: a publish that waited for the PDS would not return within the 30 s below.
        var p = publisher(10, Duration.ofSeconds(5), new OkHttpClient.Builder().readTimeout(Duration.ofMinutes(10)).build());
        CountDownLatch answer = new CountDownLatch(1);
        pds.held = answer;
        Path log = Files.writeString(dir.resolve("run-1.log"), "step build\nok\n");
        CompletableFuture<Void> published = CompletableFuture.runAsync(() -> {
            try {
                p.publish(Checks.running("run-1"));
                p.publish(Checks.ended("run-1", CheckStatus.SUCCESS, log.toString()));
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        try {
            published.get(HANG.toSeconds(), TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            throw new AssertionError("publish waited for a PDS that had answered nothing (calls taken: " + pds.calls + ")");
        }
        assertThat(answer.getCount()).as("the PDS has answered nothing yet").isOne();
        pds.down = true;
        answer.countDown();
        await("three calls to the PDS that is away").atMost(HANG).until(() -> pds.calls.size() >= 3);
        assertThat(pds.storedPuts.get()).isZero();

        pds.down = false;
        await("the publisher idle").atMost(HANG).until(p::idle);
        var record = pds.records.get("dev.knotless.check/run-1");
        assertThat(record.get("status").asText()).isEqualTo("success");
        assertThat(record.get("repo").asText()).isEqualTo("https://git.example/alice/hello");
        assertThat(pds.storedPuts.get()).as("the running state was replaced before it got through").isEqualTo(1);
        String cid = record.get("log").get("ref").get("$link").asText();
        assertThat(pds.blobs.get(cid)).isEqualTo(Files.readAllBytes(log));
        assertThat(lines).hasSize(2);
        assertThat(lines.get(0)).startsWith("ATProto: cannot reach the PDS (").contains("HTTP 503");
        assertThat(lines.get(1)).contains("answers again");
    }

    @Test
    void aRefusedRecordIsOneLogLineAndDoesNotHoldUpOthers() throws IOException {
        var p = publisher(10, Duration.ofSeconds(5));
        pds.refusePuts = true;
        p.publish(Checks.running("run-1"));
        await("the publisher idle").atMost(HANG).until(p::idle);
        assertThat(lines).containsExactly("ATProto: the PDS refused check run-1 (running): com.atproto.repo.putRecord at "
                + pds.url() + ": HTTP 400 InvalidRequest: Invalid record");
        pds.refusePuts = false;
        p.publish(Checks.running("run-2"));
        await("run-2's record").atMost(HANG).until(() -> pds.records.containsKey("dev.knotless.check/run-2"));
    }

    @Test
    void aFullQueueRefusesANewRunAtOnceWithAReason() throws IOException {
        var p = publisher(1, Duration.ofMillis(50));
        pds.down = true;
        p.publish(Checks.running("run-1"));
        assertThatThrownBy(() -> p.publish(Checks.running("run-2")))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("holds 1 runs not yet sent")
                .hasMessageContaining("run-2 not queued");
        p.publish(Checks.ended("run-1", CheckStatus.SUCCESS, null)); // the waiting run is still updated
    }

    @Test
    void atShutdownEachCheckLeftUnsentIsOneLineWithItsLastError() throws IOException {
        var p = publisher(10, Duration.ofMillis(300));
        pds.down = true;
        p.publish(Checks.ended("run-1", CheckStatus.FAILURE, null));
        await("a call to the PDS").atMost(HANG).until(() -> !pds.calls.isEmpty());
        p.close();
        assertThat(lines).last().asString()
                .startsWith("ATProto: check run-1 (failure) not published: the runner stopped (last error: ")
                .contains("HTTP 503");
        assertThatThrownBy(() -> p.publish(Checks.running("run-2"))).hasMessageContaining("closed");
    }

    @Test
    void closeSendsWhatWaitsWithinTheGrace() throws IOException {
        var p = publisher(10, HANG); // two 503s and retries of 20 and 40 ms; close returns once it is sent
        pds.failPuts.set(2);
        p.publish(Checks.ended("run-1", CheckStatus.SUCCESS, null));
        p.close();
        assertThat(pds.records).containsKey("dev.knotless.check/run-1");
        assertThat(lines).noneMatch(l -> l.contains("not published"));
    }
}
