import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Config } from "../config.ts";

/**
 * AES-256-GCM with a key derived from TESSERA_SECRET_KEY. Without it, the embedded server makes one
 * and keeps it beside its data (`<TESSERA_DATA_DIR>/secret-key`, mode 0600); a server on PostgreSQL
 * must be given one so that every process can read what the others wrote.
 */
export class SecretCipher {
  readonly #key: Buffer;

  constructor(secret: string) {
    this.#key = createHash("sha256").update(secret).digest();
  }

  encrypt(plain: string): Buffer {
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", this.#key, iv);
    const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), body]);
  }

  decrypt(sealed: Uint8Array): string {
    const buf = Buffer.from(sealed);
    const decipher = createDecipheriv("aes-256-gcm", this.#key, buf.subarray(0, 12));
    decipher.setAuthTag(buf.subarray(12, 28));
    return Buffer.concat([decipher.update(buf.subarray(28)), decipher.final()]).toString("utf8");
  }
}

export function secretCipher(config: Pick<Config, "secretKey" | "dataDir" | "databaseUrl">): SecretCipher | null {
  if (config.secretKey) return new SecretCipher(config.secretKey);
  if (config.databaseUrl) return null;
  try {
    const path = join(config.dataDir, "secret-key");
    if (!existsSync(path)) {
      mkdirSync(config.dataDir, { recursive: true });
      writeFileSync(path, randomBytes(32).toString("base64url"), { mode: 0o600, flag: "wx" });
    }
    return new SecretCipher(readFileSync(path, "utf8").trim());
  } catch {
    return null;
  }
}
