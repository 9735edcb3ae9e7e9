version.traceg
