import Foundation

/// What happened: one kind per write that someone else may care about (the author of a liked
/// review, a cached map tile, another instance). The raw value is the stable name stored in the
/// `events` table and shown to clients; a name never changes meaning.
public enum EventKind: String, Sendable, CaseIterable, Codable {
    case reviewCreated = "review.created"
    case reviewEdited = "review.edited"
    case reviewDeleted = "review.deleted"
    case reviewHidden = "review.hidden"
    case reviewUnhidden = "review.unhidden"
    case reviewLiked = "review.liked"
    case reviewUnliked = "review.unliked"
    case reviewBookmarked = "review.bookmarked"
    case reviewUnbookmarked = "review.unbookmarked"
    case commentCreated = "comment.created"
    case commentEdited = "comment.edited"
    case commentDeleted = "comment.deleted"
    case commentHidden = "comment.hidden"
    case commentUnhidden = "comment.unhidden"
    case userFollowed = "user.followed"
    case userUnfollowed = "user.unfollowed"
    case userBlocked = "user.blocked"
    case userUnblocked = "user.unblocked"
    case profileChanged = "user.profile_changed"
    case avatarChanged = "user.avatar_changed"
    case accountSuspended = "user.suspended"
    case accountReinstated = "user.reinstated"
    case accountDeleted = "user.deleted"
    case placeCreated = "place.created"
    case placeEdited = "place.edited"
    case placeRemoved = "place.removed"
    /// One import batch: many places created or changed at once (`burgermap import`).
    case placesImported = "places.imported"
    /// An import source's places removed at once (`burgermap remove-source`).
    case placesRemoved = "places.removed"
    /// A moderator's decision on a report (hide, restore or dismiss).
    case reportDecided = "report.decided"
    /// A notification group was made or changed (`subject`: its row, `details.user`: its
    /// recipient): what open streams on every instance send on. Recorded by the notification
    /// worker, in the transaction that changed the group.
    case notificationUpdated = "notification.updated"
}

/// One write's event, as recorded in the same transaction as the write. `subject` is the id of
/// the thing it happened to (a review, comment, user or place, as `kind` says); `details` name
/// the others involved, so that a subscriber need not read the write's rows (which may be gone).
///
/// Never in an event: a password or its hash, a token, an email, or where a person is. Places'
/// coordinates are public facts, not a person's whereabouts; an import's `bounds` are those.
public struct DomainEvent: Sendable, Equatable {
    public var kind: EventKind
    /// Who made the write; `nil` for the operator's commands (imports, source removal).
    public var actor: Int64?
    public var subject: Int64
    public var details: EventDetails

    public init(_ kind: EventKind, actor: Int64?, subject: Int64, details: EventDetails = EventDetails()) {
        self.kind = kind
        self.actor = actor
        self.subject = subject
        self.details = details
    }
}

/// The small typed payload of an event: only the members a kind needs are set.
public struct EventDetails: Sendable, Equatable, Codable {
    /// The place of a review or a place event.
    public var place: Int64?
    /// The review a like, bookmark or comment is on.
    public var review: Int64?
    /// The other person: the author of the review or comment acted on, the user followed or
    /// blocked, the owner of hidden content.
    public var user: Int64?
    /// The report a moderator decided.
    public var report: Int64?
    /// What the moderator decided (`hidden`, `restored`, `dismissed`: the report's resolution).
    public var decision: String?
    /// An import source's name.
    public var source: String?
    /// How many places an import batch created or changed, or a removal removed.
    public var count: Int?
    /// The box the places of a batch lie in: `[west, south, east, north]` in degrees.
    public var bounds: [Double]?
    /// The places of a batch, when at most `EventDetails.maximumPlaceIDs` (else only `bounds`).
    public var places: [Int64]?

    /// The cells of `cellLevel` that the places lie in (before and after a move): what a map
    /// tile cache forgets. Level 20 (the tiles of the finest zoom) unless a batch spans more
    /// than `maximumCells` of them, then the finest level where it spans fewer.
    public var cells: [Int64]?
    /// The level of `cells`.
    public var cellLevel: Int?

    /// The most place ids an import event lists; a larger batch names its bounds only.
    public static let maximumPlaceIDs = 1_000
    /// The most cells an event lists.
    public static let maximumCells = 4_096

    enum CodingKeys: String, CodingKey {
        case place, review, user, report, decision, source, count, bounds, places, cells
        case cellLevel = "cell_level"
    }

    public init(
        place: Int64? = nil, review: Int64? = nil, user: Int64? = nil, report: Int64? = nil,
        decision: String? = nil, source: String? = nil, count: Int? = nil, bounds: [Double]? = nil,
        places: [Int64]? = nil, cells: [Int64]? = nil, cellLevel: Int? = nil
    ) {
        self.place = place
        self.review = review
        self.user = user
        self.report = report
        self.decision = decision
        self.source = source
        self.count = count
        self.bounds = bounds
        self.places = places
        self.cells = cells
        self.cellLevel = cellLevel
    }

    /// The payload column's text: compact JSON with only the members set, in key order. Written
    /// by hand: every write makes one, and Foundation's `JSONEncoder` took several times as long
    /// as the rest of a like's Swift work.
    public var json: String {
        var members: [String] = []
        func add(_ key: String, _ value: String?) {
            if let value { members.append("\"\(key)\":\(value)") }
        }
        add("bounds", bounds.map { "[" + $0.map { "\($0)" }.joined(separator: ",") + "]" })
        add("cell_level", cellLevel.map { "\($0)" })
        add("cells", cells.map { "[" + $0.map { "\($0)" }.joined(separator: ",") + "]" })
        add("count", count.map { "\($0)" })
        add("decision", decision.map(Self.quoted))
        add("place", place.map { "\($0)" })
        add("places", places.map { "[" + $0.map { "\($0)" }.joined(separator: ",") + "]" })
        add("report", report.map { "\($0)" })
        add("review", review.map { "\($0)" })
        add("source", source.map(Self.quoted))
        add("user", user.map { "\($0)" })
        return "{" + members.joined(separator: ",") + "}"
    }

    /// `text` as a JSON string.
    public static func jsonString(_ text: String) -> String { quoted(text) }

    /// `text` as a JSON string.
    static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                out += "\\u00" + (scalar.value < 0x10 ? "0" : "") + String(scalar.value, radix: 16)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// The details a payload column holds (`{}` for text this version cannot read).
    public init(json: String) {
        self = (try? JSONDecoder().decode(EventDetails.self, from: Data(json.utf8))) ?? EventDetails()
    }
}

/// An event as the `events` table holds it: its id (increasing in commit order, with holes) and
/// the time of its write.
public struct RecordedEvent: Sendable, Equatable {
    public var id: Int64
    public var time: Timestamp
    public var event: DomainEvent

    public init(id: Int64, time: Timestamp, event: DomainEvent) {
        self.id = id
        self.time = time
        self.event = event
    }

    /// A row of the `events` table; `nil` for a kind this version does not know (written by a
    /// newer instance during an upgrade): such an event is skipped, not misread.
    public init?(id: Int64, time: Int64, kind: String, actor: Int64?, subject: Int64, payload: String) {
        guard let kind = EventKind(rawValue: kind) else { return nil }
        self.init(
            id: id, time: Timestamp(milliseconds: time),
            event: DomainEvent(kind, actor: actor, subject: subject, details: EventDetails(json: payload)))
    }
}

extension DomainEvent {
    /// The event of hiding or restoring a review or comment (`target`'s kind); `actor` is `nil`
    /// when reports alone hid it; `parent` is the review's place or the comment's review.
    public static func visibility(
        of target: ReportTarget, hidden: Bool, actor: Int64?, owner: Int64, parent: Int64?
    ) -> DomainEvent {
        target.kind == "review"
            ? DomainEvent(
                hidden ? .reviewHidden : .reviewUnhidden, actor: actor, subject: target.id,
                details: EventDetails(place: parent, user: owner))
            : DomainEvent(
                hidden ? .commentHidden : .commentUnhidden, actor: actor, subject: target.id,
                details: EventDetails(review: parent, user: owner))
    }

    /// A moderator's decision on one report (`user`: the reporter).
    public static func decision(
        report: Int64, _ resolution: ReportResolution, by moderator: Int64, reporter: Int64
    ) -> DomainEvent {
        DomainEvent(
            .reportDecided, actor: moderator, subject: report,
            details: EventDetails(user: reporter, decision: resolution.rawValue))
    }
}
