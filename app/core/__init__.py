"""Infrastructure shared by every domain package: config, db, redis, errors, logging."""
