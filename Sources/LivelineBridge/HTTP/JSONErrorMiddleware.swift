import Hummingbird
import HTTPTypes

/// Gives the answers Hummingbird makes itself the bridge's JSON error shape: a path no route
/// matches (404) and any error a handler did not turn into an answer (500, logged).
struct JSONErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as BridgeHTTPError {
            return error.response
        } catch let error as HTTPError where error.status == .notFound {
            return BridgeHTTPError.notFound(
                "no route for \(request.method) \(request.uri.path.prefix(100)); the bridge serves POST /v1/webhooks/{source}, "
                    + "PUT, GET and DELETE /v1/activities/{key}, GET /v1/activities/{key}/pushes, GET /healthz, /readyz and /metrics"
            ).response
        } catch let error as any HTTPResponseError {
            return BridgeHTTPError(error.status, code: "http-error", reason: error.status.reasonPhrase).response
        } catch {
            context.logger.error("unhandled error", metadata: ["error": .string("\(error)")])
            return BridgeHTTPError(
                .internalServerError, code: "internal-error", reason: "the bridge failed to answer; see its log"
            ).response
        }
    }
}
