package dev.knotless.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.javalin.http.Context;
import java.io.IOException;
import java.io.UncheckedIOException;

/** The API's JSON: one mapper for what it reads and what it answers, and one way to answer, errors included. */
record ApiJson(ObjectMapper mapper) {

    void send(Context ctx, Object body) {
        try {
            ctx.contentType("application/json");
            ctx.result(mapper.writeValueAsBytes(body));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
