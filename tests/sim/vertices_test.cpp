// Vertices in the real dialect (written next).
