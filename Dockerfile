# The studyflow worker and webhook receiver as one image (docs/deploy.md). Build from the checkout:
#   docker build -t studyflow .
# Run a worker:    docker run --env-file worker.env studyflow worker
# Run a receiver:  docker run --env-file receiver.env -p 4020:4020 studyflow receiver --host 0.0.0.0 --port 4020
# Check a host:    docker run --env-file worker.env studyflow worker --check   (exit 0 when everything is reachable)

# Build: compile dist/ (the CLI and the prebuilt workflow bundle) and pack the package as npm would publish it.
FROM node:20-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts
COPY . .
RUN npm run build && npm pack --ignore-scripts && mv studyflow-*.tgz /tmp/studyflow.tgz

# Run: the packed package and its production dependencies only; no TypeScript, no Go, no dev server.
FROM node:20-bookworm-slim
ENV NODE_ENV=production \
    STUDYFLOW_LOG_LEVEL=WARN
RUN --mount=type=bind,from=build,source=/tmp/studyflow.tgz,target=/tmp/studyflow.tgz \
    npm install --global --omit=dev /tmp/studyflow.tgz && npm cache clean --force
# Workers start without webpack: the bundle built above ships in the package.
USER node
WORKDIR /home/node
EXPOSE 4020
ENTRYPOINT ["studyflow"]
CMD ["worker"]
