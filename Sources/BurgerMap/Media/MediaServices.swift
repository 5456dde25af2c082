import Foundation
import Hummingbird

/// What photo uploads need: the image workers, the files, and the upload limits.
public struct MediaServices: Sendable {
    public let workers: ImageWorkers
    public let storage: PhotoStorage
    let limits: UploadLimits

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
    /// the upload. Staged files that `body` did not rename are removed in any case; if anything
    /// throws, the renamed ones (`PhotoUpload.installed`) are removed too, so a failed request
    /// leaves no file.
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
            return try await body(upload)
        } catch {
            storage.remove(photoIDs: upload.installed.all)
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
