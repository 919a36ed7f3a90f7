# Job image of the Docker runtime (EEMT_RUNTIME=docker): the job child and the workflows, nothing else.
#   docker build -t eemt:ubuntu24.04 .        (the name is CONTAINER_IMAGE; needs a registry for node:20)
# Without a registry, `node scripts/build-job-image.mjs` builds the same image from this machine's Node.js
# (docs/deployment.md, "The Docker runtime"). Both stage the root filesystem with that script: /app (the compiled code, the
# packages the job child imports, native addons included), /usr/local/bin/node with its shared libraries,
# /etc/passwd with the users node (1000) and nobody (65534), and the mount points /job, /input, /scratch, /cache.
# The service starts one container per job: node /app/dist/runtime/jobChild.js /job/job.json.
FROM node:20-bookworm-slim AS build
# compilers for native modules when no prebuilt binary can be fetched
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY assembly ./assembly
COPY scripts ./scripts
RUN node scripts/build-job-image.mjs --rootfs /rootfs

FROM scratch
COPY --from=build /rootfs/ /
# the image settings of scripts/build-job-image.mjs (IMAGE_CHANGES)
USER node
WORKDIR /job
ENV PATH=/usr/local/bin:/usr/bin:/bin
ENV NODE_ENV=production
CMD ["node", "/app/dist/runtime/jobChild.js", "/job/job.json"]
