package dev.knotless.http;

/** A request the API answers with a status and one line, as {@code {"error": "..."}}. */
final class ApiError extends RuntimeException {

    private final int status;

    ApiError(int status, String message) {
        super(message, null, false, false);
        this.status = status;
    }

    static ApiError notFound(String what) {
        return new ApiError(404, what + " not found");
    }

    static ApiError badRequest(String why) {
        return new ApiError(400, why);
    }

    static ApiError unprocessable(String why) {
        return new ApiError(422, why);
    }

    static ApiError conflict(String why) {
        return new ApiError(409, why);
    }

    int status() {
        return status;
    }
}
