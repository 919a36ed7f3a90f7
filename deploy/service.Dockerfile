# Image of the service and of its workers (docker-compose.yml): the whole built package on Node.js 20.
# Jobs run in a plain child process inside the container (EEMT_RUNTIME=process): the container is their sandbox.
#   docker build -f deploy/service.Dockerfile -t eemt-service .
FROM node:20-bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY assembly ./assembly
COPY web ./web
COPY public ./public
COPY scripts ./scripts
COPY bin ./bin
RUN npm run build && npm prune --omit=dev
ENV NODE_ENV=production
EXPOSE 5000
CMD ["node", "dist/server/main.js"]
