import { Injectable, OnModuleInit } from '@nestjs/common';
import type { Principal } from '../common/auth/principal';
import { badRequest, unauthorized } from '../common/errors/http-error';
import { ImageForm, StoredImagesService } from '../images/stored-images.service';
import { UsersService } from '../users/users.service';
import type { UpdateProfileFields } from './dto/update-profile.dto';

/** The signed-in member's own display name and avatar. */
@Injectable()
export class ProfileService implements OnModuleInit {
  constructor(
    private readonly users: UsersService,
    private readonly images: StoredImagesService,
  ) {}

  /** Avatars no member references are swept as unreferenced uploads. */
  onModuleInit(): void {
    this.images.registerOwner('avatars', () => this.users.avatarPaths());
  }

  /** PATCH /profile: `display_name` (empty clears it) and file `avatar`; a new avatar deletes the old file. */
  async update(principal: Principal, form: ImageForm<UpdateProfileFields>): Promise<void> {
    try {
      const name = form.fields.display_name;
      const avatar = form.image('avatar');
      if (name === undefined && !avatar) throw badRequest('Nothing to update: send display_name or avatar');
      const avatarPath = avatar ? await this.images.keep(avatar) : undefined;
      let updated: { previousAvatar: string | null } | null;
      try {
        updated = await this.users.updateReturningAvatar(principal.userId, {
          ...(name !== undefined ? { displayName: name || null } : {}),
          ...(avatarPath ? { avatarPath } : {}),
        });
      } catch (err) {
        await this.images.remove(avatarPath);
        throw err;
      }
      if (!updated) {
        await this.images.remove(avatarPath);
        throw unauthorized();
      }
      if (avatarPath) await this.images.remove(updated.previousAvatar);
    } finally {
      await form.discard();
    }
  }
}
