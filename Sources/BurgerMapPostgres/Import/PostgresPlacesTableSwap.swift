import BurgerMapCore
import Logging
import PostgresNIO

/// How a first load's staging table takes `places`'s place (`PostgresStagedFirstLoad`): inside
/// the transaction that records the import, under `places`'s ACCESS EXCLUSIVE lock, with
/// everything read from the catalog so that a migration's new index, key or trigger comes along
/// without a change here. What `CREATE TABLE … (LIKE places …)` did not copy is given back:
/// the indexes (built on the staging table beforehand, renamed here), the primary key and
/// unique constraints (over those indexes), the foreign keys (added beforehand, renamed), the
/// identity of `id` (continuing `places`'s sequence), the triggers, and the other tables'
/// foreign keys to `places`.
///
/// Privileges granted on `places` by hand are not carried over (docs/deployment.md says so).
///
/// Every name and definition here comes from the catalog (quoted by `quote_ident` and the
/// `pg_get_*def` functions), never from a client.
struct PostgresPlacesTableSwap {
    let connection: PostgresConnection
    let logger: Logger

    /// What the staging table takes from `places`'s catalog before its rows are indexed.
    struct Plan: Sendable {
        struct Index: Sendable {
            let name: String
            let stagingName: String
            let createOnStaging: String
            /// A primary key (`PRIMARY KEY`) or unique constraint (`UNIQUE`) over the index.
            let constraint: (name: String, kind: String)?
        }

        struct ForeignKey: Sendable {
            let name: String
            let stagingName: String
            let addToStaging: String
        }

        let staging: String
        /// Largest first: GIN, then GiST, then the B-trees (the builds' order).
        var indexes: [Index] = []
        var foreignKeys: [ForeignKey] = []

        static func read(on connection: PostgresConnection, staging: String, logger: Logger) async throws -> Plan {
            var plan = Plan(staging: staging)
            let indexes = try await connection.query(
                """
                SELECT quote_ident(c.relname), pg_get_indexdef(i.indexrelid), quote_ident(con.conname),
                    con.contype::text
                FROM pg_index AS i
                JOIN pg_class AS c ON c.oid = i.indexrelid
                JOIN pg_am AS am ON am.oid = c.relam
                LEFT JOIN pg_constraint AS con ON con.conindid = i.indexrelid AND con.conrelid = i.indrelid
                WHERE i.indrelid = 'places'::regclass
                ORDER BY CASE am.amname WHEN 'gin' THEN 0 WHEN 'gist' THEN 1 ELSE 2 END, i.indexrelid
                """, logger: logger)
            for try await (name, definition, constraintName, kind) in indexes.decode(
                (String, String, String?, String?).self)
            {
                let stagingName = "\(staging)_i\(plan.indexes.count)"
                guard let using = definition.range(of: " USING ") else {
                    throw StorageError.unexpectedAnswer("an index definition with USING: \(definition)")
                }
                let unique = definition.hasPrefix("CREATE UNIQUE INDEX ")
                var constraint: (String, String)?
                if let constraintName, let kind {
                    switch kind {
                    case "p": constraint = (constraintName, "PRIMARY KEY")
                    case "u": constraint = (constraintName, "UNIQUE")
                    default: throw StorageError.unexpectedAnswer("a constraint of kind \(kind) on places")
                    }
                }
                plan.indexes.append(
                    Index(
                        name: name, stagingName: stagingName,
                        createOnStaging: "CREATE \(unique ? "UNIQUE " : "")INDEX \(stagingName) ON \(staging)"
                            + definition[using.lowerBound...],
                        constraint: constraint))
            }
            let keys = try await connection.query(
                """
                SELECT quote_ident(conname), pg_get_constraintdef(oid) FROM pg_constraint
                WHERE conrelid = 'places'::regclass AND contype = 'f' ORDER BY oid
                """, logger: logger)
            for try await (name, definition) in keys.decode((String, String).self) {
                let stagingName = "\(staging)_f\(plan.foreignKeys.count)"
                plan.foreignKeys.append(
                    ForeignKey(
                        name: name, stagingName: stagingName,
                        addToStaging: "ALTER TABLE \(staging) ADD CONSTRAINT \(stagingName) \(definition)"))
            }
            return plan
        }
    }

    /// Puts the staging table of `plan` in `places`'s place. Throws
    /// `PostgresEngineError.placesAddedDuringFirstLoad` when a writer added a place since the
    /// load began (the transaction then rolls back, and `places` keeps that place).
    func swap(_ plan: Plan) async throws {
        try await execute("LOCK TABLE places IN ACCESS EXCLUSIVE MODE")
        guard try await strings("SELECT 'empty' WHERE NOT EXISTS (SELECT FROM places)") == ["empty"] else {
            throw PostgresEngineError.placesAddedDuringFirstLoad
        }
        var referencing: [(table: String, name: String, definition: String)] = []
        for try await key in try await connection.query(
            """
            SELECT conrelid::regclass::text, quote_ident(conname), pg_get_constraintdef(oid) FROM pg_constraint
            WHERE confrelid = 'places'::regclass AND conrelid <> 'places'::regclass AND contype = 'f' ORDER BY oid
            """, logger: logger
        ).decode((String, String, String).self) {
            referencing.append(key)
        }
        let triggers = try await strings(
            "SELECT pg_get_triggerdef(oid) FROM pg_trigger WHERE tgrelid = 'places'::regclass AND NOT tgisinternal ORDER BY oid"
        )
        let identity = try await strings(
            """
            SELECT CASE attidentity WHEN 'a' THEN 'ALWAYS' WHEN 'd' THEN 'BY DEFAULT' END FROM pg_attribute
            WHERE attrelid = 'places'::regclass AND attname = 'id' AND attidentity <> ''
            """)
        // The next id continues `places`'s sequence (ids of deleted places are never reused).
        let nextID = try await strings("SELECT nextval(pg_get_serial_sequence('places', 'id'))::text")

        for key in referencing {
            try await execute("ALTER TABLE \(key.table) DROP CONSTRAINT \(key.name)")
        }
        try await execute("DROP TABLE places")
        try await execute("ALTER TABLE \(plan.staging) RENAME TO places")
        for index in plan.indexes {
            if let constraint = index.constraint {
                try await execute(
                    "ALTER TABLE places ADD CONSTRAINT \(constraint.name) \(constraint.kind) USING INDEX \(index.stagingName)"
                )
            } else {
                try await execute("ALTER INDEX \(index.stagingName) RENAME TO \(index.name)")
            }
        }
        for key in plan.foreignKeys {
            try await execute("ALTER TABLE places RENAME CONSTRAINT \(key.stagingName) TO \(key.name)")
        }
        if let kind = identity.first, let start = nextID.first {
            try await execute(
                "ALTER TABLE places ALTER COLUMN id ADD GENERATED \(kind) AS IDENTITY (START WITH \(start))")
        }
        for trigger in triggers {
            try await execute(trigger)
        }
        for key in referencing {
            try await execute("ALTER TABLE \(key.table) ADD CONSTRAINT \(key.name) \(key.definition)")
        }
    }

    private func execute(_ sql: String) async throws {
        try await connection.query("\(unescaped: sql)", logger: logger)
    }

    private func strings(_ sql: String) async throws -> [String] {
        var values: [String] = []
        for try await value in try await connection.query("\(unescaped: sql)", logger: logger).decode(String.self) {
            values.append(value)
        }
        return values
    }
}
