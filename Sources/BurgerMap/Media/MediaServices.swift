import Foundation

/// What photo uploads need: the image workers, the files, and the upload limits.
public struct MediaServices: Sendable {
    public let workers: ImageWorkers
    public let storage: PhotoStorage
    let limits: UploadLimits

    /// Media for a data folder, with one image worker per core.
    public init(dataDirectory: URL, workers: ImageWorkers = ImageWorkers()) throws {
        self.workers = workers
        storage = try PhotoStorage(dataDirectory: dataDirectory)
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

    /// Removes every file a failed upload left: staged ones and ones already renamed.
    func cleanUp(staged: [StagedPhoto], installed: InstalledPhotos) {
        for photo in staged { storage.discard(photo) }
        storage.remove(photoIDs: installed.all)
    }
}
