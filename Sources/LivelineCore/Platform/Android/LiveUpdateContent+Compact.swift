extension LiveUpdateContent {
    /// Writes the content in the compact byte form (``AndroidMemory``'s).
    public func write(to writer: inout CompactWriter) {
        writer.string(channel)
        writer.optional(smallIcon) { $0.string($1) }
        writer.string(style.rawValue)
        writer.string(title)
        writer.optional(text) { $0.string($1) }
        writer.optional(chip) { $0.string($1) }
        writer.optional(progress) { $0.int($1) }
        writer.optional(progressMax) { $0.int($1) }
        writer.unsigned(UInt64(segments.count))
        for segment in segments {
            writer.int(segment.length)
            writer.optional(segment.color) { $0.string($1) }
        }
        writer.unsigned(UInt64(points.count))
        for point in points {
            writer.int(point.position)
            writer.optional(point.color) { $0.string($1) }
        }
        writer.optional(when) { $0.int($1) }
        writer.optional(chronometer) { $0.string($1.rawValue) }
        writer.unsigned(UInt64(extras.count))
        for pair in extras {
            writer.string(pair.key)
            writer.string(pair.value)
        }
    }

    /// The content ``write(to:)`` wrote.
    public init(reading reader: inout CompactReader) throws(CompactDecodingError) {
        let channel = try reader.string()
        let smallIcon = try reader.optional { (reader) throws(CompactDecodingError) in try reader.string() }
        let styleName = try reader.string()
        guard let style = AndroidLiveUpdate.Style(rawValue: styleName) else {
            throw reader.error(
                "a Live Update style (\(AndroidLiveUpdate.Style.allCases.map(\.rawValue).joined(separator: ", ")))")
        }
        let title = try reader.string()
        let text = try reader.optional { (reader) throws(CompactDecodingError) in try reader.string() }
        let chip = try reader.optional { (reader) throws(CompactDecodingError) in try reader.string() }
        let progress = try reader.optional { (reader) throws(CompactDecodingError) in try reader.int() }
        let progressMax = try reader.optional { (reader) throws(CompactDecodingError) in try reader.int() }
        var segments: [AndroidLiveUpdate.Segment] = []
        for _ in 0..<(try reader.count()) {
            let length = try reader.int()
            let color = try reader.optional { (reader) throws(CompactDecodingError) in try reader.string() }
            segments.append(AndroidLiveUpdate.Segment(length: length, color: color))
        }
        var points: [AndroidLiveUpdate.Point] = []
        for _ in 0..<(try reader.count()) {
            let position = try reader.int()
            let color = try reader.optional { (reader) throws(CompactDecodingError) in try reader.string() }
            points.append(AndroidLiveUpdate.Point(position: position, color: color))
        }
        let when = try reader.optional { (reader) throws(CompactDecodingError) in try reader.int64() }
        let chronometerName = try reader.optional { (reader) throws(CompactDecodingError) in try reader.string() }
        var chronometer: AndroidLiveUpdate.Chronometer?
        if let chronometerName {
            guard let known = AndroidLiveUpdate.Chronometer(rawValue: chronometerName) else {
                throw reader.error("a chronometer direction (up or down)")
            }
            chronometer = known
        }
        var extras: [DataPair] = []
        for _ in 0..<(try reader.count()) {
            extras.append(DataPair(key: try reader.string(), value: try reader.string()))
        }
        self.init(
            channel: channel, smallIcon: smallIcon, style: style, title: title, text: text, chip: chip,
            progress: progress, progressMax: progressMax, segments: segments, points: points, when: when,
            chronometer: chronometer, extras: extras)
    }
}
