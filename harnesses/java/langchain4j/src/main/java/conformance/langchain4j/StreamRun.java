package conformance.langchain4j;

import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.service.TokenStream;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A TokenStream run to its end. LangChain4j reports an exception raised while a stream is parsed
 * through onError and goes on parsing; the loop may then complete and send more requests. After an
 * error the run waits until the loop completes or has been quiet for a while, so that those requests
 * are judged with their own case and never arrive during the next one.
 */
final class StreamRun {
    private static final long LIMIT_SECONDS = 55;
    private static final long QUIET_NANOS = TimeUnit.MILLISECONDS.toNanos(1500);

    private final CompletableFuture<ChatResponse> completed = new CompletableFuture<>();
    private final CompletableFuture<Throwable> failed = new CompletableFuture<>();
    private volatile long lastActivity = System.nanoTime();

    static String run(TokenStream stream) throws Exception {
        return new StreamRun().await(stream);
    }

    private String await(TokenStream stream) throws Exception {
        stream.onPartialResponse(text -> touch())
                .onIntermediateResponse(response -> touch())
                .beforeToolExecution(before -> touch())
                .onToolExecuted(execution -> touch())
                .onCompleteResponse(response -> {
                    touch();
                    completed.complete(response);
                })
                .onError(error -> {
                    touch();
                    failed.complete(error);
                })
                .start();
        CompletableFuture.anyOf(completed, failed).get(LIMIT_SECONDS, TimeUnit.SECONDS);
        if (!failed.isDone()) {
            return completed.get().aiMessage().text();
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(LIMIT_SECONDS);
        while (!completed.isDone() && System.nanoTime() - lastActivity < QUIET_NANOS && System.nanoTime() < deadline) {
            try {
                completed.get(100, TimeUnit.MILLISECONDS);
            } catch (TimeoutException | ExecutionException stillRunning) {
                // keep waiting for quiet
            }
        }
        Throwable error = failed.get();
        throw error instanceof Exception e ? e : new RuntimeException(error);
    }

    private void touch() {
        lastActivity = System.nanoTime();
    }
}
