from django.contrib import admin

from benchdash.cloud.models import CloudInstance, CloudStudy, CloudTemplate


@admin.register(CloudTemplate)
class CloudTemplateAdmin(admin.ModelAdmin):
    list_display = ["name", "region", "db_instance_type", "db_price_per_hour", "client_instance_type"]
    fieldsets = [
        (None, {"fields": ["name", "region", "image_id", "setup_minutes"]}),
        ("EC2", {"fields": ["subnet_id", "security_group_id", "public_address"]}),
        ("Volume", {"fields": ["volume_type", "volume_size_gib", "volume_iops"]}),
        ("SSH", {"fields": ["key_name", "key_path", "ssh_user", "work_dir"]}),
        (
            "Instances",
            {"fields": ["db_instance_type", "db_price_per_hour", "client_instance_type", "client_price_per_hour"]},
        ),
    ]


class CloudInstanceInline(admin.TabularInline):
    model = CloudInstance
    extra = 0
    can_delete = False
    readonly_fields = ["role", "host", "instance_id", "instance_type", "price_per_hour", "launched_at", "terminated_at"]

    def has_add_permission(self, request, obj=None) -> bool:  # type: ignore[no-untyped-def]
        return False


@admin.register(CloudStudy)
class CloudStudyAdmin(admin.ModelAdmin):
    list_display = ["study", "template", "state", "expires_at", "cost_bound"]
    list_filter = ["state", "template"]
    readonly_fields = ["study", "template", "state", "expires_at", "cost_bound", "error"]
    inlines = [CloudInstanceInline]

    def has_add_permission(self, request) -> bool:  # type: ignore[no-untyped-def]
        return False
