import Hummingbird
import HTTPTypes

/// While the bridge drains (a deploy's SIGTERM), answers webhooks 503 with `Retry-After` and a
/// JSON reason instead of storing them: the sender retries, reaching another instance or the
/// next one. The connection stays open and answered, never reset; the registry and the
/// operations routes keep working (`/readyz` says it drains).
struct DrainMiddleware<Context: RequestContext>: RouterMiddleware {
    let drain: BridgeDrain

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard drain.isDraining, request.method == .post, request.uri.path.hasPrefix("/v1/webhooks/") else {
            return try await next(request, context)
        }
        return BridgeHTTPError.draining(retryAfter: drain.retryAfter()).response
    }
}

extension BridgeHTTPError {
    /// 503 while the bridge drains; `retryAfter` in whole seconds.
    static func draining(retryAfter: Int) -> BridgeHTTPError {
        var headers = HTTPFields()
        headers[.retryAfter] = "\(retryAfter)"
        return BridgeHTTPError(
            .serviceUnavailable, code: "draining",
            reason:
                "this bridge instance is shutting down and takes no new webhooks; send again after \(retryAfter) s (another instance may take it sooner)",
            headers: headers
        )
    }
}
