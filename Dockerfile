# Workflow image for the Docker job runtime (EEMT_RUNTIME=docker): the job child and the workflows.
#   docker build -t eemt:ubuntu24.04 .      (the name is CONTAINER_IMAGE)
# The service starts one container per job: node /app/dist/runtime/jobChild.js /job/job.json, with the job
# folder mounted at /job, the DEM's folder read-only at /input and scratch space at /scratch.
FROM node:20-bookworm-slim AS build
# compilers for native modules (better-sqlite3) when no prebuilt binary can be fetched
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build && npm prune --omit=dev

FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
USER node
CMD ["node", "/app/dist/runtime/jobChild.js", "/job/job.json"]
