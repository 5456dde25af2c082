import BurgerMapCore
import Foundation
import Hummingbird

/// What photo uploads need: the image workers, the files, and the upload limits.
public struct MediaServices: Sendable {
    public let workers: ImageWorkers
    public let storage: PhotoStorage
    let limits: UploadLimits
    /// The photo rows, asked after a failed request whether the rows of the photos it
    /// installed committed (set by `buildRouter`).
    var rows: (any PhotoStore)?

    /// Media for a data folder (photos in its `photos/`), with one image worker per core.
    public init(dataDirectory: URL, workers: ImageWorkers = ImageWorkers()) throws {
        try self.init(storage: PhotoStorage(dataDirectory: dataDirectory), workers: workers)
    }

    /// Media with photos in `storage`, with one image worker per core.
    public init(storage: PhotoStorage, workers: ImageWorkers = ImageWorkers()) {
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
        return try storage.stage(processed)
    }

    /// Reads a multipart form whose parts named `fileField` are photos (at most `maxFiles`) and
    /// whose parts named in `textFields` are kept as text; other parts are ignored (not even
    /// checked for UTF-8 or repeats: the document promises they are ignored),
    /// processing and staging each photo as soon as its part is complete, then runs `body` with
    /// the upload. Once `body` returns, the photos its transaction installed are published
    /// under their final names (`PhotoStorage`). Staged files that `body` did not install are
    /// removed in any case; if anything throws, installed photos whose rows did not commit are
    /// removed too (and those whose rows did are published), so a failed request leaves no file.
    func receive<Result>(
        _ request: Request, fileField: String, maxFiles: Int, textFields: Set<String> = [],
        _ body: (PhotoUpload) async throws -> Result
    ) async throws -> Result {
        var upload = PhotoUpload()
        defer { for photo in upload.photos { storage.discard(photo) } }
        var limits = self.limits
        limits.files = maxFiles
        do {
            try await MultipartFormReader(limits: limits, fileFields: [fileField]).read(request) { part in
                switch part {
                case .field(let name, let value):
                    if textFields.contains(name) { upload.fields.record(name, value) }
                case .file(let name, _, let bytes):
                    upload.photos.append(try await stage(bytes, field: name))
                }
            }
            let result = try await body(upload)
            try storage.publish(photoIDs: upload.installed.all)
            return result
        } catch {
            let installed = upload.installed.all
            // When the database cannot say, the files wait in `incoming/` for the next start-up.
            if !installed.isEmpty, let committed = try? await rows?.settleStagedPhotoIDs(installed) {
                try? storage.publish(photoIDs: installed.filter(committed.contains))
                storage.discardInstalled(photoIDs: installed.filter { !committed.contains($0) })
            }
            throw error
        }
    }
}

/// A multipart upload once read: its text parts and its photos, staged in `incoming/`.
struct PhotoUpload {
    var fields = FormFields()
    var photos: [StagedPhoto] = []
    /// The photo ids a transaction renamed this upload's files to.
    let installed = InstalledPhotos()
}
