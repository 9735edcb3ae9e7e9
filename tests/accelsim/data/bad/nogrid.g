nogrid.traceg
