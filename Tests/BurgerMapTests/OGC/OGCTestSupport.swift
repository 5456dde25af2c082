import BurgerMap
import BurgerMapCore
import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing

/// One page of OGC items as a client reads it.
struct OGCPage {
    var status: HTTPResponse.Status
    var contentType: String?
    var linkHeader: String?
    var body: [String: Any]

    var features: [[String: Any]] { body["features"] as? [[String: Any]] ?? [] }
    var ids: [Int64] { features.compactMap { ($0["id"] as? NSNumber)?.int64Value } }
    var numberMatched: Int? { (body["numberMatched"] as? NSNumber)?.intValue }
    var numberReturned: Int? { (body["numberReturned"] as? NSNumber)?.intValue }
    var links: [[String: Any]] { body["links"] as? [[String: Any]] ?? [] }

    /// The `href` of the first link with `rel`.
    func link(_ rel: String) -> String? {
        links.first { $0["rel"] as? String == rel }?["href"] as? String
    }
}

extension TestClientProtocol {
    /// `GET uri` (a path with its query) with `headers`, read as a page of items.
    func ogcPage(_ uri: String, headers: HTTPFields = [:]) async throws -> OGCPage {
        let response = try await execute(uri: uri, method: .get, headers: headers)
        let body = (try? json(response)) ?? [:]
        return OGCPage(
            status: response.status, contentType: response.headers[.contentType],
            linkHeader: response.headers[HTTPField.Name("Link")!], body: body)
    }

    /// Every feature of an items route, following `next` links until there is none; checks on
    /// each page that the `Link` header names the same next page and `numberReturned` counts
    /// the page. Answers the ids in the order read and every page.
    func ogcWalk(_ uri: String) async throws -> (ids: [Int64], pages: [OGCPage]) {
        var ids: [Int64] = []
        var pages: [OGCPage] = []
        var next: String? = uri
        while let uri = next, pages.count < 1_000 {
            let page = try await ogcPage(uri)
            #expect(page.status == .ok, "\(uri): \(page.body)")
            #expect(page.numberReturned == page.features.count)
            ids += page.ids
            pages.append(page)
            let href = page.link("next")
            if let href {
                #expect(page.linkHeader == "<\(href)>; rel=\"next\"; type=\"application/geo+json\"")
            } else {
                #expect(page.linkHeader == nil)
            }
            next = try href.map(ogcPathAndQuery)
        }
        return (ids, pages)
    }

}

/// The path and query of an absolute link.
func ogcPathAndQuery(_ href: String) throws -> String {
    let components = try #require(URLComponents(string: href))
    return components.percentEncodedPath + (components.percentEncodedQuery.map { "?" + $0 } ?? "")
}

/// The problem document of a response: status, `code`, and the fields and codes of its errors.
func ogcProblem(_ response: TestResponse) throws -> (code: String?, fields: [String], fieldCodes: [String]) {
    #expect(response.headers[.contentType] == "application/problem+json")
    let body = try json(response)
    let errors = body["errors"] as? [[String: Any]] ?? []
    return (
        body["code"] as? String, errors.compactMap { $0["field"] as? String },
        errors.compactMap { $0["code"] as? String }
    )
}
