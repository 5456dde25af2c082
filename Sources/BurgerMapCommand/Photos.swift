import ArgumentParser
import AsyncHTTPClient
import BurgerMap
import BurgerMapObjectStorage
import Foundation

/// `burgermap photos`: the operator's photo commands.
struct Photos: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Photo store operations.", subcommands: [MigratePhotos.self])
}

/// `burgermap photos migrate --to s3://BUCKET[/PREFIX]`: copies every photo and avatar of the
/// folder store into a bucket, where a service started with `--photo-store` on that bucket finds
/// them (a photo of the folder keeps no key in its row and is stored under its id,
/// `PhotoObjectKey`). The folder and the database are left untouched, so the service may keep
/// serving from the folder meanwhile; an image already in the bucket with the same SHA-256 is
/// skipped, so the command is idempotent and resumes where an interrupted run stopped.
struct MigratePhotos: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate", abstract: "Copy the folder's photos into an S3-compatible bucket, verified by hash.")

    @Option(help: ArgumentHelp("The bucket and prefix the service will use.", valueName: "s3://BUCKET[/PREFIX]"))
    var to: String
    @Option(help: "The photo folder (default: DATA_DIR/photos).") var photoDir: String?
    @OptionGroup var data: DataOptions
    @OptionGroup var bucket: BucketOptions
    @Option(help: "Images copied at once.") var parallel = 4

    func validate() throws {
        guard S3Location(to) != nil else { throw ValidationError("--to must be s3://BUCKET[/PREFIX]") }
        guard (1...64).contains(parallel) else { throw ValidationError("--parallel must be 1…64") }
    }

    func run() async throws {
        guard let location = S3Location(to) else { throw ValidationError("--to must be s3://BUCKET[/PREFIX]") }
        let folder =
            photoDir.map { URL(fileURLWithPath: $0, isDirectory: true) }
            ?? data.dataDirectory.appendingPathComponent("photos", isDirectory: true)
        let client = S3Client(
            configuration: try bucket.configuration(bucket: location.bucket), httpClient: S3Client.sharedHTTPClient)
        let migration = PhotoMigration(client: client, prefix: location.prefix, folder: folder)
        let images = try migration.images()
        var progress = MigrationProgress(total: images.count)
        FileHandle.standardError.write(Data("photos migrate: \(images.count) images in \(folder.path)\n".utf8))
        try await withThrowingTaskGroup(of: PhotoMigration.Outcome.self) { group in
            var next = images.makeIterator()
            for _ in 0..<parallel {
                guard let image = next.next() else { break }
                group.addTask { try await migration.copy(image) }
            }
            while let outcome = try await group.next() {
                progress.record(outcome)
                if let image = next.next() { group.addTask { try await migration.copy(image) } }
            }
        }
        progress.report(final: true)
    }
}

/// What has been done, printed to standard error at most once a second and at the end.
struct MigrationProgress {
    let total: Int
    var copied = 0
    var present = 0
    var bytes = 0
    let started = ContinuousClock.now
    var lastReport = ContinuousClock.now

    init(total: Int) { self.total = total }

    mutating func record(_ outcome: PhotoMigration.Outcome) {
        switch outcome {
        case .copied(let size):
            copied += 1
            bytes += size
        case .present: present += 1
        }
        if lastReport.duration(to: .now) >= .seconds(1) {
            lastReport = .now
            report(final: false)
        }
    }

    func report(final: Bool) {
        let seconds = max(Double(started.duration(to: .now).components.seconds), 1)
        let line = String(
            format: "photos migrate: %d/%d images (%d copied, %d already there), %.1f MB, %.1f MB/s%@\n",
            copied + present, total, copied, present, Double(bytes) / 1_000_000, Double(bytes) / 1_000_000 / seconds,
            final ? " — done, every image verified" : "")
        FileHandle.standardError.write(Data(line.utf8))
    }
}
