import BurgerMapCore
import Foundation
import Hummingbird

/// What photo uploads need: the image workers, where images live, and the upload limits.
public struct MediaServices: Sendable {
    public let workers: ImageWorkers
    public let storage: any PhotoStorage
    /// How photo URLs are answered (`--photo-urls`); only an object store has a choice.
    public var links = PhotoLinks.service
    let limits: UploadLimits
    /// The photo rows, asked after a failed request whether the rows of the photos it
    /// installed committed (set by `buildRouter`).
    var rows: (any PhotoStore)?

    /// Media for a data folder (photos in its `photos/`), with one image worker per core.
    public init(dataDirectory: URL, workers: ImageWorkers = ImageWorkers()) throws {
        try self.init(storage: PhotoFolder(dataDirectory: dataDirectory), workers: workers)
    }

    /// Media with photos in `storage`, with one image worker per core.
    public init(storage: any PhotoStorage, workers: ImageWorkers = ImageWorkers()) {
        self.workers = workers
        self.storage = storage
        limits = UploadLimits()
    }

    /// Processes one uploaded image and writes its files to `incoming/`; a bad image is the
    /// contract's problem for the part named `field`.
    func stage(_ bytes: [UInt8], field: String) async throws -> StagedPhoto {
        let processed: ProcessedPhoto
        do {
            processed = try await workers.process(bytes)
        } catch let error as ImageError {
            switch error {
            case .unsupportedType:
                throw Problem(.unsupportedMediaType, .imageUnsupported, ["field": field])
            case .tooManyPixels(let width, let height):
                throw Problem(
                    .payloadTooLarge, .imageTooManyPixels,
                    ["field": field, "width": "\(width)", "height": "\(height)", "max": "50"])
            case .corrupt:
                throw Problem(.invalidImage, .imageInvalid, ["field": field])
            case .outOfMemory:
                throw error
            }
        }
        return try await storage.stage(processed)
    }

    /// Reads a multipart form whose parts named `fileField` are photos (at most `maxFiles`) and
    /// whose parts named in `textFields` are kept as text; other parts are ignored (not even
    /// checked for UTF-8 or repeats: the document promises they are ignored),
    /// processing and staging each photo as soon as its part is complete, then runs `body` with
    /// the upload. Once `body` returns, the photos its transaction installed are published
    /// (`PhotoStorage`). Staged images that `body` did not install are removed in any case; if
    /// anything throws, installed photos whose rows did not commit are removed too (and those
    /// whose rows did are published), so a failed request leaves no image behind.
    func receive<Result>(
        _ request: Request, fileField: String, maxFiles: Int, textFields: Set<String> = [],
        digestingFiles: Bool = false, _ body: (PhotoUpload) async throws -> Result
    ) async throws -> Result {
        var upload = PhotoUpload()
        var limits = self.limits
        limits.files = maxFiles
        do {
            try await MultipartFormReader(limits: limits, fileFields: [fileField]).read(request) { part in
                switch part {
                case .field(let name, let value):
                    if textFields.contains(name) { upload.fields.record(name, value) }
                case .file(let name, _, let bytes):
                    if digestingFiles { upload.fileDigests.append(IdempotentRequests.digest(bytes)) }
                    upload.photos.append(try await stage(bytes, field: name))
                }
            }
            let result = try await body(upload)
            await discardUninstalled(upload)
            try await storage.publish(upload.installed.all)
            return result
        } catch {
            let installed = upload.installed.all
            // When the database cannot say, the images wait for the store's sweep.
            if !installed.isEmpty, let committed = try? await rows?.settleStagedPhotoIDs(installed.map(\.photoID)) {
                try? await storage.publish(installed.filter { committed.contains($0.photoID) })
                await storage.discardInstalled(installed.filter { !committed.contains($0.photoID) })
            }
            await discardUninstalled(upload)
            throw error
        }
    }

    /// Removes the images of photos whose rows a store write deleted: the store's own removal,
    /// then one round of the deletion queue those rows were put on, so that the images are gone
    /// before the answer on every instance (a bucket's objects included). What fails here stays
    /// queued for the janitor (`PhotoObjectJanitor`).
    func removeImages(photoIDs: [Int64]) async {
        guard !photoIDs.isEmpty else { return }
        await storage.remove(photoIDs: photoIDs)
        if let rows { _ = try? await PhotoObjectJanitor(storage: storage, rows: rows, sweepGrace: .zero).drainQueue() }
    }

    /// Removes the staged images of an upload that no transaction took.
    private func discardUninstalled(_ upload: PhotoUpload) async {
        let installed = Set(upload.installed.all.map(\.staged.name))
        for photo in upload.photos where !installed.contains(photo.name) { await storage.discard(photo) }
    }
}

/// A multipart upload once read: its text parts and its photos, staged in `incoming/`.
struct PhotoUpload {
    var fields = FormFields()
    var photos: [StagedPhoto] = []
    /// The SHA-256 of each file part as sent, with `digestingFiles` (an `Idempotency-Key`'s
    /// fingerprint); empty otherwise.
    var fileDigests: [String] = []
    /// The photo ids a transaction renamed this upload's files to.
    let installed = InstalledPhotos()
}
